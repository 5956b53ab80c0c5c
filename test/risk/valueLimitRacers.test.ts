/**
 * Value limits under a race across two processes (issue 34 item 1): two service processes (the real entry
 * point) share one PostgreSQL database and ledger; 50 clients at once, half on each process, each send one
 * transfer of $7.50 (0.05 SOL at the ledger's $150) from a wallet limited to $60 an hour. The limit admits
 * exactly eight: however the decisions interleave across the processes, eight confirm, the others are denied
 * naming the limit, the window's use is $60, and the chain received exactly the confirmed transfers.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ValueLimits } from "../../schemas/valueLimits.js"
import type { Transaction } from "../../schemas/transaction.js"
import { call, createFundedWallet, killAllChildren, type ServiceProcess, type SharedDeployment, startSharedDeployment } from "../support/processes.js"

const RACERS = 50
const LAMPORTS = 50_000_000

let deployment: SharedDeployment | undefined
let first: ServiceProcess | undefined
let second: ServiceProcess | undefined

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-value-racers-")
  try {
    ;[first, second] = await Promise.all([deployment.startService({ TX_PIPELINE_WORKERS: "8" }), deployment.startService({ TX_PIPELINE_WORKERS: "8" })])
  } catch (error) {
    killAllChildren()
    throw error
  }
}, 240_000)

afterAll(async () => {
  await deployment?.close()
}, 60_000)

describe("a USD value limit under 50 racers across two processes", () => {
  it("confirms exactly what the limit admits; the window's use equals what reached the chain", async () => {
    const wallet = await createFundedWallet(first!.baseUrl, 3_000_000_000)
    const put = await call<typeof ValueLimits.Encoded>(first!.baseUrl, "PUT", `/api/v1/risk/value-limits/wallet/${wallet.id}`, { limits: [{ currency: "USD", windowSeconds: 3600, max: "60" }] })
    expect(put.status).toBe(200)

    const outcomes = await Promise.all(
      Array.from({ length: RACERS }, async (_, index) => {
        const destination = Keypair.generate().publicKey.toBase58()
        const service = index % 2 === 0 ? first! : second!
        const answer = await call<typeof Transaction.Encoded>(service.baseUrl, "POST", "/api/v1/transactions?waitMs=30000", {
          walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS }
        })
        return { destination, status: answer.body.data.status, error: answer.body.data.error ?? "" }
      })
    )
    const confirmed = outcomes.filter((outcome) => outcome.status === "confirmed")
    expect(confirmed).toHaveLength(8)
    for (const denied of outcomes.filter((outcome) => outcome.status !== "confirmed")) {
      expect(denied.status).toBe("failed")
      expect(denied.error).toContain(`value limit: wallet ${wallet.id} may move 60 USD per 3600s`)
    }
    const state = await call<typeof ValueLimits.Encoded>(second!.baseUrl, "GET", `/api/v1/risk/value-limits/wallet/${wallet.id}`)
    expect(state.body.data.limits).toMatchObject([{ used: "60", remaining: "0" }])
    const connection = new Connection(deployment!.ledger.rpcUrl, "confirmed")
    const received = await Promise.all(outcomes.map((outcome) => connection.getBalance(new PublicKey(outcome.destination))))
    expect(received.reduce((sum, lamports) => sum + lamports, 0)).toBe(confirmed.length * LAMPORTS)
  }, 240_000)
})
