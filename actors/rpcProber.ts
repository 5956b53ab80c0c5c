/**
 * The RPC prober: every CHAIN_RPC_HEALTH_PROBE_MS it sends getHealth to every endpoint of the pool, so
 * a dead endpoint's score falls (and a recovered one's rises) even while no call uses it.
 */
import { Duration, Effect, Layer } from "effect"
import { ChainClient } from "../src/chain/chainClient.js"
import { AppConfig } from "../src/config.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const RPC_PROBER_ACTOR = "rpc-prober"

export const RpcProberLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const chain = yield* ChainClient
    const config = yield* AppConfig
    const interval = Duration.millis(config.chain.healthProbeMs)
    yield* superviseActor(
      RPC_PROBER_ACTOR,
      (handle) =>
        Effect.gen(function* () {
          // Sleep first: at start nothing is known yet, and the calls themselves score the endpoints.
          yield* handle.setStatus("idle")
          yield* Effect.sleep(interval)
          yield* handle.setStatus("running")
          // probe() records each endpoint's failure in its status (GET /rpc/pool/status), not as the
          // actor's error; it rejects only on a bug, which the supervisor restarts.
          yield* Effect.tryPromise(() => chain.pool.probe())
        }).pipe(Effect.forever),
      { kind: "rpc-prober" }
    )
  })
)
