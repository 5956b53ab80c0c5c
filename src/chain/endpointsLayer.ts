/**
 * Where the ledger is: CHAIN_RPC_URL (+ CHAIN_RPC_POOL_URLS) when set; otherwise the local ledger, a
 * child process on LEDGER_PORT (started while the modules loaded, src/headStarts.ts, or here) stopped
 * with the service, with the gasless fee-payer relay beside it (src/gasless/localRelay.ts).
 */
import { Effect, Layer, Option } from "effect"
import { AppConfig } from "../config.js"
import { startLocalRelay } from "../gasless/localRelay.js"
import { localLedger } from "../headStarts.js"
import { ChainEndpoints } from "./chainClient.js"

export const ChainEndpointsLive = Layer.scoped(
  ChainEndpoints,
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.chain.rpcUrl)) {
      return { urls: [config.chain.rpcUrl.value, ...config.chain.poolUrls] }
    }
    // started while the modules loaded when main.ts could (headStarts.ts)
    const ledger = yield* Effect.acquireRelease(
      Effect.promise(() => localLedger(config)),
      (running) => Effect.promise(() => running.stop())
    )
    yield* Effect.logInfo(`local ledger (litesvm) serving Solana JSON-RPC on ${ledger.rpcUrl}`)
    yield* startLocalRelay(ledger.rpcUrl, config.dataDir)
    return { urls: [ledger.rpcUrl, ...config.chain.poolUrls] }
  })
)
