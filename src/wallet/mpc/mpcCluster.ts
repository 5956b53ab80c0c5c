/**
 * The three FROST nodes of the mpc backend. By default (three node secrets configured) each is a
 * supervised actor (visible in the actor registry as mpc-node-<n>) that owns its MpcNode and serves
 * its requests one at a time from its own queue; such a node can be stopped and started (an operator
 * drill, and the tests'), and a stopped node answers nothing. With WALLET_MPC_NODE_URLS the nodes are
 * separate processes (`npm run start:mpc-node`) called over HTTP with WALLET_MPC_INTERNAL_TOKEN; this
 * process then holds no node secret, and a node is stopped by stopping its process. Either way the
 * coordinator calls a node through the same request/answer operations (nodeApi.ts).
 */
import { Data, Deferred, Duration, Effect, Exit, ExecutionStrategy, Option, Queue, Redacted, Runtime, Scope } from "effect"
import { ActorRegistry } from "../../supervision/actorRegistry.js"
import { superviseActor } from "../../supervision/superviseActor.js"
import { AppConfig, mpcNodeSecrets } from "../../config.js"
import { MpcNode } from "./mpcNode.js"
import { localNodeApi, type MpcNodeApi } from "./nodeApi.js"
import { remoteNodeApi } from "./nodeClient.js"

export class MpcNodeUnavailable extends Data.TaggedError("MpcNodeUnavailable")<{ readonly message: string }> {}

interface Job {
  readonly run: (node: MpcNodeApi) => Promise<unknown>
  readonly reply: Deferred.Deferred<unknown, Error>
}

/** A request a node has not answered in this time counts as the node being down. */
const CALL_TIMEOUT = Duration.seconds(10)

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)))

export class MpcCluster extends Effect.Service<MpcCluster>()("MpcCluster", {
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const urls = config.wallet.mpcNodeUrls
    const runtime = yield* Effect.runtime<never>()

    if (urls.length === 3 && Option.isSome(config.wallet.mpcInternalToken)) {
      const token = Redacted.value(config.wallet.mpcInternalToken.value)
      const remotes = urls.map((url, i) => remoteNodeApi(i + 1, url, token))
      const call = <A>(index: number, run: (node: MpcNodeApi) => Promise<A>): Promise<A> => {
        const node = remotes[index - 1]
        return node === undefined ? Promise.reject(new MpcNodeUnavailable({ message: `mpc node ${index} is not configured` })) : run(node)
      }
      const remoteOnly = (index: number) =>
        Effect.die(new MpcNodeUnavailable({ message: `mpc node ${index} is a separate process: start or stop that process` }))
      return {
        configured: true,
        remote: true,
        indexes: [1, 2, 3],
        // A remote node's state is learnt by calling it: a node that does not answer fails its call.
        isRunning: (_index: number) => true,
        call,
        start: remoteOnly,
        stop: remoteOnly
      }
    }

    const secrets = mpcNodeSecrets(config)
    const parent = yield* Effect.scope
    const registry = yield* ActorRegistry
    const states = Option.isNone(secrets)
      ? []
      : yield* Effect.forEach(secrets.value, (secret, i) =>
          Effect.gen(function* () {
            const node = localNodeApi(new MpcNode(i + 1, Redacted.value(secret), config.dataDir))
            return { node, queue: yield* Queue.unbounded<Job>(), scope: null as Scope.CloseableScope | null }
          })
        )

    const stateOf = (index: number) => {
      const state = states[index - 1]
      if (state === undefined) throw new MpcNodeUnavailable({ message: `mpc node ${index} is not configured` })
      return state
    }

    const start = (index: number) =>
      Effect.gen(function* () {
        const state = stateOf(index)
        if (state.scope !== null) return
        const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
        yield* superviseActor(
          `mpc-node-${index}`,
          () =>
            Effect.forever(
              Effect.flatMap(Queue.take(state.queue), (job) =>
                Effect.flatMap(Effect.exit(Effect.tryPromise({ try: () => job.run(state.node), catch: asError })), (exit) => Deferred.done(job.reply, exit))
              )
            ),
          { kind: "mpc-node" }
        ).pipe(Scope.extend(scope), Effect.provideService(ActorRegistry, registry))
        state.scope = scope
      })

    const stop = (index: number) =>
      Effect.gen(function* () {
        const state = stateOf(index)
        if (state.scope === null) return
        const scope = state.scope
        state.scope = null
        yield* Scope.close(scope, Exit.void)
        for (const job of yield* Queue.takeAll(state.queue)) {
          yield* Deferred.fail(job.reply, new MpcNodeUnavailable({ message: `mpc node ${index} is stopped` }))
        }
      })

    yield* Effect.forEach(states, (_, i) => start(i + 1), { discard: true })

    /** Runs `run` on node `index`'s actor; fails at once when the node is stopped. */
    const call = <A>(index: number, run: (node: MpcNodeApi) => Promise<A>): Promise<A> =>
      Runtime.runPromise(runtime)(
        Effect.gen(function* () {
          const state = stateOf(index)
          if (state.scope === null) return yield* new MpcNodeUnavailable({ message: `mpc node ${index} is stopped` })
          const reply = yield* Deferred.make<unknown, Error>()
          yield* Queue.offer(state.queue, { run, reply })
          return (yield* Deferred.await(reply).pipe(
            Effect.timeoutFail({ duration: CALL_TIMEOUT, onTimeout: () => new MpcNodeUnavailable({ message: `mpc node ${index} did not answer` }) })
          )) as A
        })
      )

    return {
      configured: states.length === 3,
      remote: false,
      indexes: states.map((_, i) => i + 1),
      isRunning: (index: number) => states[index - 1]?.scope != null,
      call,
      start,
      stop
    }
  })
}) {}
