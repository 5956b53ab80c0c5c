/**
 * The create path alone: an API-only process (TX_PIPELINE_WORKERS=0) on PostgreSQL, no pipeline
 * running anywhere, the same clients posting the same transfers. It shows how many creates a second
 * one process answers and at what latency, which bounds the create latency of the full run (32
 * clients that always have a create waiting: latency = clients / creates per second).
 */
import { Keypair } from "@solana/web3.js"
import * as fs from "node:fs"
import {
  createFundedWallet,
  createPostgresDatabase,
  mapConcurrent,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../../test/support/processes.js"
import { cpuDelta, cpuSnapshot, type CpuSnapshot } from "./cpu.js"
import { benchPostgresUrl } from "./postgresUrl.js"
import { postTransfers } from "./transferClients.js"

export interface CreatesOnlyFigures {
  readonly creates: number
  readonly elapsedMs: number
  readonly createMs: ReadonlyArray<number>
  readonly cpu: CpuSnapshot
}

export const runCreatesOnly = async (options: { transfers: number; clients: number; sources: number; warmup: number }): Promise<CreatesOnlyFigures> => {
  const ledger = await startLedgerProcess()
  const database = await createPostgresDatabase(benchPostgresUrl())
  const dataDir = tempDir("custody-bench-")
  try {
    const service = await startServiceProcess({ databaseUrl: database.url, dataDir, rpcUrl: ledger.rpcUrl, env: { TX_PIPELINE_WORKERS: "0" } })
    try {
      const sources = await mapConcurrent(Array.from({ length: options.sources }, (_, i) => i), 8, () => createFundedWallet(service.baseUrl, 1_000_000_000))
      const destinations = Array.from({ length: 64 }, () => Keypair.generate().publicKey.toBase58())
      const load = { clients: options.clients, sources, destinations }
      if (options.warmup > 0) await postTransfers(service.baseUrl, { ...load, count: options.warmup, offset: 500_000 })
      const before = cpuSnapshot([service.pid], ledger.pid)
      const started = performance.now()
      const { createMs } = await postTransfers(service.baseUrl, { ...load, count: options.transfers, offset: 0 })
      const elapsedMs = performance.now() - started
      return { creates: options.transfers, elapsedMs, createMs, cpu: cpuDelta(before, cpuSnapshot([service.pid], ledger.pid)) }
    } finally {
      await service.stop(15_000)
    }
  } finally {
    await ledger.close()
    await database.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
