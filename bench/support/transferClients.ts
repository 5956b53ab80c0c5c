/**
 * The load clients of the pipeline benchmarks: concurrent clients posting transfer_sol creates over
 * HTTP, each client posting again as soon as its last create answered (or, paced, when the next
 * create is due). They share one keep-alive agent and use undici's request: fetch costs about twice
 * the CPU per call, and the clients run on the same two cores as the service they measure.
 */
import { Agent, request } from "undici"
import { mapConcurrent, SERVICE_API_KEY } from "../../test/support/processes.js"
import { sleep } from "./stats.js"

const clientAgent = new Agent({ keepAliveTimeout: 30_000, connections: 64 })

export const postJson = async (baseUrl: string, urlPath: string, body: unknown) => {
  const response = await request(baseUrl + urlPath, {
    method: "POST",
    headers: { "x-api-key": SERVICE_API_KEY, "content-type": "application/json" },
    body: JSON.stringify(body),
    dispatcher: clientAgent
  })
  return { status: response.statusCode, body: (await response.body.json()) as { data: any } }
}

export const getJson = async (baseUrl: string, urlPath: string) => {
  const response = await request(baseUrl + urlPath, { method: "GET", headers: { "x-api-key": SERVICE_API_KEY }, dispatcher: clientAgent })
  return { status: response.statusCode, body: (await response.body.json()) as { data: any } }
}

export interface TransferLoad {
  readonly count: number
  readonly clients: number
  readonly sources: ReadonlyArray<{ readonly id: string }>
  readonly destinations: ReadonlyArray<string>
  /** Added to every amount, so the transfers of two runs differ. */
  readonly offset: number
  /** Creates per second offered by all clients together; undefined: as fast as the gateway answers. */
  readonly rate?: number
}

/** Posts the transfers; returns the ids and each POST's time (ms), as the client measured it. */
export const postTransfers = async (baseUrl: string, load: TransferLoad) => {
  const createMs: Array<number> = []
  const ids: Array<string> = []
  const start = performance.now()
  await mapConcurrent(Array.from({ length: load.count }, (_, i) => i), load.clients, async (i) => {
    // Paced: the i-th create is due at start + i / rate; a client never sends early.
    if (load.rate !== undefined) await sleep(Math.max(0, start + (i * 1000) / load.rate - performance.now()))
    const body = {
      walletId: load.sources[i % load.sources.length]!.id, type: "transfer_sol", protocol: "system-program",
      intent: { destination: load.destinations[i % load.destinations.length]!, lamports: 1_000_000 + load.offset + i }
    }
    const t0 = performance.now()
    // waitMs=0: the burst measures accepting creates, not waiting for each outcome (create waits by default).
    const response = await postJson(baseUrl, "/api/v1/transactions?waitMs=0", body)
    createMs.push(performance.now() - t0)
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`)
    ids.push(response.body.data.id as string)
  })
  return { createMs, ids }
}
