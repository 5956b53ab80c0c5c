/**
 * Where the ledger is: CHAIN_RPC_URL (+ CHAIN_RPC_POOL_URLS) when set; otherwise the local ledger,
 * started here as a child process on LEDGER_PORT and stopped with the service, with the gasless
 * fee-payer relay beside it (src/gasless/localRelay.ts).
 */
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { AppConfig, LOCAL_ESCROW_PROGRAM_ID } from "../config.js"
import { startLocalRelay } from "../gasless/localRelay.js"
import { spawnLedger } from "../ledger/spawn.js"
import { ChainEndpoints } from "./chainClient.js"

export const ChainEndpointsLive = Layer.scoped(
  ChainEndpoints,
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.chain.rpcUrl)) {
      return { urls: [config.chain.rpcUrl.value, ...config.chain.poolUrls] }
    }
    const ledger = yield* Effect.acquireRelease(
      Effect.promise(() =>
        spawnLedger({
          port: config.ports.ledger,
          dataDir: path.resolve(config.dataDir),
          env: { ESCROW_PROGRAM_ID: Option.getOrElse(config.escrowProgramId, () => LOCAL_ESCROW_PROGRAM_ID) }
        })
      ),
      (running) => Effect.promise(() => running.stop())
    )
    yield* Effect.logInfo(`local ledger (litesvm) serving Solana JSON-RPC on ${ledger.rpcUrl}`)
    yield* startLocalRelay(ledger.rpcUrl, config.dataDir)
    return { urls: [ledger.rpcUrl, ...config.chain.poolUrls] }
  })
)
