/**
 * burn_token through the pipeline (POST /api/v1/transactions) on the local ledger: the wallet's token balance
 * and the mint's supply fall by the amount burned; a burn beyond the balance fails at build, naming the field.
 */
import { getAccount, getAssociatedTokenAddressSync, getMint } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()

/** POST /api/v1/transactions, then the transaction once settled. */
const run = async (body: Record<string, unknown>) =>
  (await waitSettled(env.service.baseUrl, (await submit(env.service.baseUrl, body)).body.data.id)).body

describe("burn_token", () => {
  it("burns from the wallet's token account: its balance and the supply fall by the amount", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const mint = String((await run({ walletId: wallet.id, type: "create_mint", protocol: "spl-token", intent: { decimals: 6 } })).data.result?.mint)
    await run({ walletId: wallet.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "1000000" } })
    const connection = new Connection(env.ledger.rpcUrl, "confirmed")
    const account = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(wallet.publicKey))
    const before = (await getAccount(connection, account)).amount

    const burned = await run({ walletId: wallet.id, type: "burn_token", protocol: "spl-token", intent: { mint, amount: "300000" } })
    expect(burned.data.status).toBe("confirmed")
    expect((await getAccount(connection, account)).amount - before).toBe(-300_000n)
    expect((await getMint(connection, new PublicKey(mint))).supply).toBe(700_000n)

    const tooMany = await run({ walletId: wallet.id, type: "burn_token", protocol: "spl-token", intent: { mint, amount: 700_001 } })
    expect(tooMany).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(tooMany.error).toContain("insufficient token balance: have 700000, need 700001")
    expect((await getAccount(connection, account)).amount).toBe(700_000n)
  })
})
