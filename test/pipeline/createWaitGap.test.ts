/**
 * Waiting requests and the stage stream across a gap in other processes' stage events: a transaction is settled
 * by another process (here, straight in SQL: no event reaches this one) while this process's LISTEN connection is
 * down. When the connection is replaced, every waited-for transaction is read once, and the request answers with
 * the settled record at once, not at its time limit (20 s here); every stream client is told of the gap, and a
 * client that named the transaction gets its current state (the SDK's iterator and `tx watch`, waiting for an
 * outcome, see it instead of waiting forever; a client following a wallet is told, the SDK calls its `onGap`).
 * No pipeline worker runs in this process, so nothing else settles it; no ledger is needed.
 */
import { Keypair } from "@solana/web3.js"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { CustodyClient, type StageEvent, type StreamGap } from "../../sdk/src/index.js"
import { LISTENER_PING } from "../../src/db/notifications.js"
import { ADMIN_KEY, type RunningService, startService } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"
import { sleep, waitFor } from "../support/wait.js"

let service: RunningService
let admin: pg.Client
const sockets: Array<WebSocket> = []

beforeAll(async () => {
  service = await startService({ rpcUrl: "http://127.0.0.1:9", env: { TX_PIPELINE_WORKERS: "0", TX_OUTBOX_POLL_MS: "60000" } })
  admin = new pg.Client({ connectionString: service.database.url })
  await admin.connect()
}, 120_000)

afterAll(async () => {
  for (const ws of sockets) ws.terminate()
  await admin?.end()
  await service?.stop()
})

describe("a create waiting when its transaction settles elsewhere during a LISTEN gap", () => {
  it("answers with the settled record once the connection is replaced, not at its time limit", async () => {
    const wallet = await createWallet(service.baseUrl)
    const started = Date.now()
    const waiting = submit(
      service.baseUrl,
      { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000 } },
      undefined,
      "?waitMs=20000"
    )
    let txId = ""
    await waitFor("the transaction row", async () => {
      txId = (await admin.query("SELECT id FROM transactions WHERE wallet_id = $1", [wallet.id])).rows[0]?.id ?? ""
      return txId !== ""
    }, 10_000, 20)
    await sleep(300)

    // Another process fails it; its relayed event is lost to this one, whose LISTEN connection is cut meanwhile.
    await admin.query(
      "UPDATE transactions SET status = 'failed', failed_at = 'build', error_code = 'PIPELINE_ERROR', error = 'settled by another process', updated_at = now() WHERE id = $1",
      [txId]
    )
    const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND (query ILIKE 'LISTEN %' OR query = $1) AND pid <> pg_backend_pid()", [LISTENER_PING])
    expect(cut.rowCount).toBe(1)

    const answer = await waiting
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(answer.body).toMatchObject({ errorCode: "PIPELINE_ERROR", data: { id: txId, status: "failed", error: "settled by another process" } })
  }, 60_000)
})

/** A raw client: every message it receives, once the service acknowledged its subscription. */
const rawClient = async (query: Record<string, string>) => {
  const ws = new WebSocket(`${service.baseUrl.replace("http", "ws")}/api/v1/stream?${new URLSearchParams(query).toString()}`, { headers: { "x-api-key": ADMIN_KEY } })
  sockets.push(ws)
  const messages: Array<Record<string, unknown>> = []
  ws.on("message", (data) => void messages.push(JSON.parse(data.toString()) as Record<string, unknown>))
  await waitFor("the subscription acknowledged", () => messages.some((message) => message.type === "subscribed"), 10_000, 20)
  return messages
}

describe("the stage stream across a gap in other processes' events", () => {
  it("tells every client of the gap, and a client naming a transaction settled meanwhile its current state", async () => {
    const wallet = await createWallet(service.baseUrl)
    const created = await submit(
      service.baseUrl,
      { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000 } },
      undefined,
      "?waitMs=0"
    )
    const txId = created.body.data.id as string
    expect(created.body.data.status).toBe("pending")

    const byTx = await rawClient({ txId })
    const byWallet = await rawClient({ walletId: wallet.id })
    const custody = new CustodyClient({ baseUrl: service.baseUrl, apiKey: ADMIN_KEY })
    const stream = await custody.stream({ txId })
    const walletGaps: Array<StreamGap> = []
    const walletStream = await custody.stream({ walletId: wallet.id }, { onGap: (gap) => void walletGaps.push(gap) })
    const outcome = (async () => {
      for await (const event of stream) if (event.status === "confirmed" || event.status === "failed") return event
      return undefined
    })()

    // Another process fails it; its relayed event is lost to this one, whose LISTEN connection is cut meanwhile.
    await admin.query(
      "UPDATE transactions SET status = 'failed', failed_at = 'build', error_code = 'PIPELINE_ERROR', error = 'settled by another process', updated_at = now() WHERE id = $1",
      [txId]
    )
    const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND (query ILIKE 'LISTEN %' OR query = $1) AND pid <> pg_backend_pid()", [LISTENER_PING])
    expect(cut.rowCount).toBe(1)

    const settled = (await Promise.race([outcome, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 15_000))])) as StageEvent | "timeout" | undefined
    expect(settled).toMatchObject({ type: "stage", txId, walletId: wallet.id, status: "failed", failedAt: "build", errorCode: "PIPELINE_ERROR" })

    await waitFor("the raw clients' gap messages", () => byTx.some((m) => m.type === "stage") && byWallet.some((m) => m.type === "gap"), 10_000, 20)
    const after = byTx.slice(byTx.findIndex((m) => m.type === "gap"))
    expect(after[0]).toMatchObject({ type: "gap", reason: expect.stringContaining("may have been missed") })
    expect(after[1]).toMatchObject({ type: "stage", txId, status: "failed", stage: expect.any(String), errorCode: "PIPELINE_ERROR" })
    expect(Date.parse(String(after[1]!.at))).not.toBeNaN()
    // A client following a wallet is told to read it; the stream cannot list what it may have missed.
    expect(byWallet.filter((m) => m.type === "gap")).toHaveLength(1)
    expect(byWallet.filter((m) => m.type === "stage")).toEqual([])
    // The SDK hands it to the caller that follows the wallet.
    await waitFor("the SDK's onGap", () => walletGaps.length === 1, 10_000, 20)
    expect(walletGaps[0]).toMatchObject({ type: "gap", at: expect.any(String), reason: expect.stringContaining("read the wallets") })
    walletStream.close()
  }, 60_000)
})
