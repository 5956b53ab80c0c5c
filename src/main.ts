/**
 * Entry point. `npm start` passes --dev (development credentials under DATA_DIR, see devCredentials.ts);
 * `npm run start:prod` does not. Configuration errors stop start-up with a message naming the variable,
 * before the service's modules are loaded (startupCheck.ts).
 */
import { Cause, ConfigProvider, Effect, Exit, Layer } from "effect"
import { AppConfig } from "./config.js"
import { devEnvironment } from "./devCredentials.js"
import { checkStartupConfig } from "./startupCheck.js"

const devMode = process.argv.includes("--dev")
const dev = devMode ? devEnvironment(process.env) : { overrides: {}, apiKey: null, notices: [] }

// One flat provider (the environment, with development defaults filled in) so a bad value is reported once.
const environment = Object.entries({ ...process.env, ...dev.overrides }).filter(
  (entry): entry is [string, string] => entry[1] !== undefined
)
const configProvider = ConfigProvider.fromMap(new Map(environment))

/** A failed start says why on stderr (a configuration error names the variable) and exits non-zero. */
const reportStartupFailure = (cause: Cause.Cause<unknown>) =>
  Effect.sync(() => {
    console.error(`agent-custody could not start:\n${Cause.pretty(cause)}`)
    process.exitCode = 1
  })

const checked = await Effect.runPromiseExit(checkStartupConfig.pipe(Effect.withConfigProvider(configProvider)))
if (Exit.isFailure(checked)) {
  await Effect.runPromise(reportStartupFailure(checked.cause))
} else {
  const [{ NodeRuntime }, { AppLive }, { ChainEndpointsLive }] = await Promise.all([
    import("@effect/platform-node"),
    import("./app.js"),
    import("./chain/endpointsLayer.js")
  ])

  const announce = Effect.gen(function* () {
    const config = yield* AppConfig
    const base = `http://localhost:${config.ports.gateway}`
    const lines = [`agent-custody gateway listening on ${base}`, ...dev.notices]
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

  Layer.launch(MainLive).pipe(
    Effect.withConfigProvider(configProvider),
    Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : reportStartupFailure(cause))),
    NodeRuntime.runMain
  )
}
