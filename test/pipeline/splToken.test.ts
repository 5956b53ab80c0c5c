/**
 * SPL token intents through the pipeline: create_mint, mint_token, and transfer_spl to a wallet that
 * has no token account yet (the pipeline creates it), checked with @solana/spl-token against the ledger.
 */
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")

const run = async (body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id)).body
}

describe("SPL token intents", () => {
  it("creates a mint, mints to the wallet, and transfers to a wallet without a token account", async () => {
    const issuer = await createWallet(env.service.baseUrl, 2_000_000_000)
    const receiver = await createWallet(env.service.baseUrl)

    const mintTx = await run({ walletId: issuer.id, type: "create_mint", protocol: "spl-token", intent: { decimals: 6 } })
    expect(mintTx.data.status).toBe("confirmed")
    const mint = String(mintTx.data.result?.mint)
    expect(mint).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)

    const minted = await run({ walletId: issuer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "1000000000" } })
    expect(minted.data.status).toBe("confirmed")
    const issuerAta = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(issuer.publicKey))
    expect((await getAccount(connection(), issuerAta)).amount).toBe(1_000_000_000n)

    const receiverAta = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(receiver.publicKey))
    expect(await connection().getAccountInfo(receiverAta)).toBeNull()
    const sent = await run({ walletId: issuer.id, type: "transfer_spl", protocol: "spl-token", intent: { destination: receiver.publicKey, mint, amount: "250000000" } })
    expect(sent.data.status).toBe("confirmed")
    expect((await getAccount(connection(), receiverAta)).amount).toBe(250_000_000n)
    expect((await getAccount(connection(), issuerAta)).amount).toBe(750_000_000n)

    const tokens = await makeClient(env.service.baseUrl).wallets.tokens({ params: { walletId: receiver.id } })
    expect(tokens.body.data.tokens).toEqual([
      { mint, amount: "250000000", decimals: 6, uiAmount: 250, tokenAccount: receiverAta.toBase58() }
    ])

    const query = await run({ walletId: receiver.id, type: "query_balance", protocol: "spl-token", intent: { mint } })
    expect(query.data.result?.tokens).toEqual([{ mint, amount: "250000000", decimals: 6, tokenAccount: receiverAta.toBase58() }])
  })

  it("fails at build when the wallet holds too few tokens, and for a protocol not deployed for this cluster", async () => {
    const issuer = await createWallet(env.service.baseUrl, 1_000_000_000)
    const mintTx = await run({ walletId: issuer.id, type: "create_mint", protocol: "spl-token", intent: {} })
    const mint = String(mintTx.data.result?.mint)
    const tooMany = await run({ walletId: issuer.id, type: "transfer_spl", protocol: "spl-token", intent: { destination: issuer.publicKey, mint, amount: "5" } })
    expect(tooMany).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })

    const stake = await run({ walletId: issuer.id, type: "stake", protocol: "liquid-staking", intent: { amount: "1000000" } })
    expect(stake).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    // liquid-staking has an adapter, but this external ledger has no LIQUID_STAKING_PROGRAM_ID: fail closed
    expect(stake.error).toContain("LIQUID_STAKING_PROGRAM_ID is not set")
  })
})
