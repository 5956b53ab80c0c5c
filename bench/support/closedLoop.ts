/**
 * Closed-loop clients (issue 18): each client creates a transfer, waits until it sees the outcome
 * (confirmed or failed), then creates the next, as the spec tells a client to. How it waits is the mode:
 *   - `waiting`: POST /transactions?waitMs=30000 answers with the settled record (a GET poll takes over
 *     in the rare case the wait ran out);
 *   - `polling`: POST ?waitMs=0, then GET /transactions/<id> every 50 ms until it is settled;
 *   - `stream`: each client holds a stage-stream WebSocket subscribed to its source wallet, posts with
 *     ?waitMs=0 and waits for the transaction's terminal stage event (an event that arrives before the
 *     create's answer is remembered);
 *   - `identical`: one client repeating the same transfer (same wallet, destination and amount), waiting
 *     with ?waitMs=.
 * Latency is create-to-outcome as the client sees it: from just before its POST to the moment it holds
 * the outcome.
 */
import { WebSocket } from "ws"
import { mapConcurrent, SERVICE_API_KEY } from "../../test/support/processes.js"
import { sleep } from "./stats.js"
import { getJson, postJson } from "./transferClients.js"

export type LoopMode = "waiting" | "polling" | "stream" | "identical"

export const LOOP_MODES: ReadonlyArray<LoopMode> = ["waiting", "polling", "stream", "identical"]

const POLL_INTERVAL_MS = 50
const WAIT_MS = 30_000
const TERMINAL: ReadonlySet<string> = new Set(["confirmed", "failed"])

export interface LoopLoad {
  readonly mode: LoopMode
  /** Transfers in all, spread over the clients. */
  readonly count: number
  readonly clients: number
  /** One source wallet per client (client i uses sources[i]). */
  readonly sources: ReadonlyArray<{ readonly id: string }>
  readonly destinations: ReadonlyArray<string>
  /** Added to every amount, so the transfers of two runs differ. */
  readonly offset: number
}

export interface LoopResult {
  readonly ids: ReadonlyArray<string>
  readonly confirmed: number
  readonly failed: number
  /** Create-to-outcome per transfer, as the client saw it (ms). */
  readonly outcomeMs: ReadonlyArray<number>
  /** The POST alone (ms): in `polling` and `stream` it answers at once (?waitMs=0), so this is the create's latency. */
  readonly createMs: ReadonlyArray<number>
  /** Per id, the client's wall clock (epoch ms) when it sent the create and when it held the outcome. */
  readonly clientTimes: ReadonlyMap<string, { readonly posted: number; readonly settled: number }>
  /** GET requests the clients made (polling, and the rare fallback of the others). */
  readonly reads: number
  readonly elapsedMs: number
}

interface Settled {
  readonly status: string
}

/** Polls GET /transactions/<id> until the record is terminal. */
const pollUntilSettled = async (baseUrl: string, id: string, counter: { reads: number }): Promise<Settled> => {
  for (;;) {
    await sleep(POLL_INTERVAL_MS)
    counter.reads += 1
    const response = await getJson(baseUrl, `/api/v1/transactions/${id}`)
    const status = response.body.data?.status as string | undefined
    if (status !== undefined && TERMINAL.has(status)) return { status }
    if (response.status >= 400 && status === undefined) throw new Error(`read failed: ${response.status} ${JSON.stringify(response.body)}`)
  }
}

/** One stage-stream connection of a client: resolves `outcome(id)` when that id's terminal event arrives. */
const openStream = async (baseUrl: string, walletId: string) => {
  const url = `${baseUrl.replace(/^http/, "ws")}/api/v1/stream?walletId=${walletId}`
  const ws = new WebSocket(url, { headers: { "x-api-key": SERVICE_API_KEY } })
  const settled = new Map<string, string>()
  const waiting = new Map<string, (status: string) => void>()
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { type: string; txId?: string; status?: string }
    if (message.type !== "stage" || message.txId === undefined || message.status === undefined || !TERMINAL.has(message.status)) return
    const resolve = waiting.get(message.txId)
    if (resolve === undefined) settled.set(message.txId, message.status)
    else {
      waiting.delete(message.txId)
      resolve(message.status)
    }
  })
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve())
    ws.once("error", reject)
    ws.once("unexpected-response", (_request, response) => reject(new Error(`stream upgrade refused: ${response.statusCode}`)))
  })
  return {
    outcome: (id: string) =>
      new Promise<Settled>((resolve) => {
        const status = settled.get(id)
        if (status !== undefined) {
          settled.delete(id)
          resolve({ status })
        } else waiting.set(id, (s) => resolve({ status: s }))
      }),
    close: () => ws.close()
  }
}

export const runClosedLoop = async (baseUrl: string, load: LoopLoad): Promise<LoopResult> => {
  const clients = load.mode === "identical" ? 1 : load.clients
  const perClient = Array.from({ length: clients }, (_, c) => Math.floor(load.count / clients) + (c < load.count % clients ? 1 : 0))
  const ids: Array<string> = []
  const outcomeMs: Array<number> = []
  const createMs: Array<number> = []
  const clientTimes = new Map<string, { posted: number; settled: number }>()
  const counter = { reads: 0 }
  let confirmed = 0
  let failed = 0
  const streams = load.mode === "stream" ? await Promise.all(load.sources.slice(0, clients).map((source) => openStream(baseUrl, source.id))) : []
  const started = performance.now()
  try {
    await mapConcurrent(perClient, clients, async (transfers, c) => {
      const source = load.sources[c % load.sources.length]!
      for (let n = 0; n < transfers; n++) {
        const body = {
          walletId: source.id, type: "transfer_sol", protocol: "system-program",
          intent:
            load.mode === "identical"
              ? { destination: load.destinations[0]!, lamports: 1_000_000 + load.offset }
              : { destination: load.destinations[(c + n) % load.destinations.length]!, lamports: 1_000_000 + load.offset + c * 10_000 + n }
        }
        const t0 = performance.now()
        const posted = Date.now()
        const waits = load.mode === "waiting" || load.mode === "identical"
        const response = await postJson(baseUrl, `/api/v1/transactions?waitMs=${waits ? WAIT_MS : 0}`, body)
        createMs.push(performance.now() - t0)
        const record = response.body.data as { id?: string; status?: string } | null
        if (record?.id === undefined) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`)
        ids.push(record.id)
        let settled: Settled
        if (load.mode === "stream") settled = await streams[c]!.outcome(record.id)
        else if (record.status !== undefined && TERMINAL.has(record.status)) settled = { status: record.status }
        else settled = await pollUntilSettled(baseUrl, record.id, counter)
        outcomeMs.push(performance.now() - t0)
        clientTimes.set(record.id, { posted, settled: Date.now() })
        if (settled.status === "confirmed") confirmed += 1
        else failed += 1
      }
    })
  } finally {
    for (const stream of streams) stream.close()
  }
  return { ids, confirmed, failed, outcomeMs, createMs, clientTimes, reads: counter.reads, elapsedMs: performance.now() - started }
}
