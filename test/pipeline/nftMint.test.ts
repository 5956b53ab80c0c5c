/**
 * nft_mint through the pipeline: a Token-2022 mint of supply 1, 0 decimals and no mint authority, whose
 * name, symbol, uri, royalty and creators are read back with @solana/spl-token's own metadata reader.
 */
import { getAccount, getAssociatedTokenAddressSync, getMint, getTokenMetadata, TOKEN_2022_PROGRAM_ID } from "@solana/spl-token"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")

describe("nft_mint", () => {
  it("mints one token with its metadata in the mint and removes the mint authority", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const artist = Keypair.generate().publicKey.toBase58()
    const intent = {
      name: "Agent Portrait #1",
      symbol: "AGNT",
      uri: "https://example.org/nft/1.json",
      sellerFeeBasisPoints: 500,
      creators: [
        { address: wallet.publicKey, verified: true, share: 70 },
        { address: artist, verified: false, share: 30 }
      ]
    }
    const created = await submit(env.service.baseUrl, { walletId: wallet.id, type: "nft_mint", protocol: "nft-program", intent })
    expect(created.status).toBe(201)
    const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body
    expect(settled.data.status).toBe("confirmed")
    const mint = new PublicKey(String(settled.data.result?.mint))

    const mintAccount = await getMint(connection(), mint, "confirmed", TOKEN_2022_PROGRAM_ID)
    expect(mintAccount.supply).toBe(1n)
    expect(mintAccount.decimals).toBe(0)
    expect(mintAccount.mintAuthority).toBeNull()
    const holding = await getAccount(connection(), getAssociatedTokenAddressSync(mint, new PublicKey(wallet.publicKey), false, TOKEN_2022_PROGRAM_ID), "confirmed", TOKEN_2022_PROGRAM_ID)
    expect(holding.amount).toBe(1n)

    // the wallet's token list shows it like any other token
    const tokens = await makeClient(env.service.baseUrl).wallets.tokens({ params: { walletId: wallet.id } })
    expect(tokens.body.data.tokens).toContainEqual(expect.objectContaining({ mint: mint.toBase58(), amount: "1", decimals: 0 }))

    const metadata = await getTokenMetadata(connection(), mint, "confirmed", TOKEN_2022_PROGRAM_ID)
    expect(metadata).toMatchObject({ name: intent.name, symbol: intent.symbol, uri: intent.uri })
    expect(metadata?.mint.toBase58()).toBe(mint.toBase58())
    expect(metadata?.updateAuthority?.toBase58()).toBe(wallet.publicKey)
    expect(metadata?.additionalMetadata).toEqual([
      ["seller_fee_basis_points", "500"],
      ["creators", `${wallet.publicKey}:70:true,${artist}:30:false`]
    ])
  })

  it("refuses bad creators with a 400 naming the field, and records nothing", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const base = { name: "x", symbol: "X", uri: "https://example.org/x.json", sellerFeeBasisPoints: 0 }
    const cases = [
      { creators: [{ address: wallet.publicKey, share: 60 }], field: "intent.creators", message: "shares must sum to 100" },
      { creators: [{ address: "not-an-address", share: 100 }], field: "intent.creators[0].address", message: "" },
      { creators: [{ address: wallet.publicKey, share: 101 }], field: "intent.creators[0].share", message: "between 0 and 100" }
    ]
    for (const { creators, field, message } of cases) {
      const refused = await submit(env.service.baseUrl, { walletId: wallet.id, type: "nft_mint", protocol: "nft-program", intent: { ...base, creators } })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
      expect(refused.body.error).toContain(field)
      expect(refused.body.error).toContain(message)
    }
    const listed = await makeClient(env.service.baseUrl).transactions.listByWallet({ params: { walletId: wallet.id } })
    expect(listed.body.data.total).toBe(0)
  })

  it("fails at build when a creator other than the wallet claims to be verified", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const other = Keypair.generate().publicKey.toBase58()
    const created = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "nft_mint", protocol: "nft-program",
      intent: { name: "x", symbol: "X", uri: "https://example.org/x.json", sellerFeeBasisPoints: 0, creators: [{ address: other, verified: true, share: 100 }] }
    })
    const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body
    expect(settled).toMatchObject({ status: "failure", failedAt: "build" })
    expect(settled.error).toContain("intent.creators[0].verified")
    expect(settled.data.signature).toBeUndefined()
  })
})
