/**
 * Entry point. `npm start` passes --dev (development credentials under DATA_DIR, see devCredentials.ts);
 * `npm run start:prod` does not. Configuration errors stop start-up with a message naming the variable.
 */
import { NodeRuntime } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer } from "effect"
import { AppLive } from "./app.js"
import { ChainEndpointsLive } from "./chain/endpointsLayer.js"
import { AppConfig } from "./config.js"
import { devEnvironment } from "./devCredentials.js"

const devMode = process.argv.includes("--dev")
const dev = devMode ? devEnvironment(process.env) : { overrides: {}, apiKey: null }

const configProvider = ConfigProvider.fromMap(new Map(Object.entries(dev.overrides))).pipe(
  ConfigProvider.orElse(() => ConfigProvider.fromEnv())
)

const announce = Effect.gen(function* () {
  const config = yield* AppConfig
  const base = `http://localhost:${config.ports.gateway}`
  const lines = [`agent-custody gateway listening on ${base}`]
  if (dev.apiKey !== null) {
    lines.push(
      `development API key (tenant *, scope all): ${dev.apiKey}`,
      `try: curl -s -X POST ${base}/api/v1/wallets -H 'x-api-key: ${dev.apiKey}' -H 'content-type: application/json' -d '{"label":"first","autoFund":true,"fundLamports":2000000000}'`
    )
  }
  yield* Effect.sync(() => console.log(lines.join("\n")))
})

const MainLive = Layer.effectDiscard(announce).pipe(
  Layer.provideMerge(AppLive),
  Layer.provide(ChainEndpointsLive),
  Layer.provideMerge(AppConfig.Default)
)

Layer.launch(MainLive).pipe(Effect.withConfigProvider(configProvider), NodeRuntime.runMain)
