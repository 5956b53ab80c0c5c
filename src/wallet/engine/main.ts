/**
 * `npm run start:wallet-engine`: the wallet engine as its own process. It holds every key secret of
 * the deployment (the backends' configuration), reads transactions from the shared PostgreSQL
 * (DATABASE_URL: the gateway process owns the schema and its migrations) and writes only the wallets'
 * sealed key material (`sealed_keys`), and signs only for callers with WALLET_ENGINE_INTERNAL_TOKEN. The gateway+pipeline process sets WALLET_ENGINE_URL instead.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, ConfigProvider, Effect, Either, Layer, Option } from "effect"
import { pgClientOnUrl } from "../../db/database.js"
import { ActorRegistry } from "../../supervision/actorRegistry.js"
import { AppConfig, appConfig, type AppConfigShape, checkKeyBackends } from "../../config.js"
import { SigningFreezes } from "../signingFreezes.js"
import { KeyStore } from "../keyStore.js"
import { MpcCluster } from "../mpc/mpcCluster.js"
import { WalletEngineServerLive } from "./engineServer.js"

const checkEngine = (config: AppConfigShape): Either.Either<AppConfigShape, ConfigError.ConfigError> => {
  if (Option.isNone(config.databaseUrl)) return Either.left(ConfigError.MissingData(["DATABASE_URL"], "the wallet engine reads the shared PostgreSQL: DATABASE_URL is required"))
  if (Option.isNone(config.walletEngine.internalToken)) {
    return Either.left(ConfigError.MissingData(["WALLET_ENGINE_INTERNAL_TOKEN"], "WALLET_ENGINE_INTERNAL_TOKEN is required by the wallet engine"))
  }
  if (Option.isSome(config.walletEngine.url)) return Either.left(ConfigError.InvalidData(["WALLET_ENGINE_URL"], "WALLET_ENGINE_URL is for the process that calls the wallet engine, not the engine"))
  return checkKeyBackends(config)
}

const EngineConfigLive = Layer.effect(
  AppConfig,
  Effect.flatMap(appConfig, (config) => Either.match(checkEngine(config), { onLeft: Effect.fail, onRight: (ok) => Effect.succeed(new AppConfig(ok)) }))
)

// DATABASE_URL is checked above; its pool bounded and watched like the service's (src/db/database.ts).
const DatabaseLive = pgClientOnUrl({ applicationName: "agent-custody-wallet-engine", maxConnections: 4 })

const announce = Effect.gen(function* () {
  const config = yield* AppConfig
  const address = (yield* HttpServer.HttpServer).address
  const port = address._tag === "TcpAddress" ? address.port : config.ports.walletEngine
  yield* Effect.sync(() => console.log(`agent-custody wallet engine listening on http://${config.walletEngine.host}:${port} (new keys: ${config.wallet.signerBackend})`))
})

export const WalletEngineLive = Layer.effectDiscard(announce).pipe(
  Layer.provideMerge(WalletEngineServerLive),
  Layer.provideMerge(Layer.merge(KeyStore.Default, SigningFreezes.Default)),
  Layer.provideMerge(MpcCluster.Default),
  Layer.provideMerge(Layer.mergeAll(ActorRegistry.Default, DatabaseLive)),
  Layer.provideMerge(EngineConfigLive)
)

const environment = Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)

Layer.launch(WalletEngineLive).pipe(
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(environment))),
  Effect.catchAllCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Effect.sync(() => {
          console.error(`agent-custody wallet engine could not start:\n${Cause.pretty(cause)}`)
          process.exitCode = 1
        })
  ),
  NodeRuntime.runMain
)
