/**
 * The service's start, loaded by main.ts once V8's compile cache is on. `npm start` passes --dev (development
 * credentials under DATA_DIR, see devCredentials.ts); `npm run start:prod` does not. Configuration errors stop
 * start-up with a message naming the variable, before the service's modules are loaded (startupCheck.ts).
 */
import { Cause, ConfigProvider, Effect, Exit, Layer, Logger } from "effect"
import * as path from "node:path"
import { flushCompileCache } from "./compileCache.js"
import { AppConfig } from "./config.js"
import { devEnvironment } from "./devCredentials.js"
import { startChildServersEarly, stopUntakenChildServers, watchStopWhileLoading } from "./headStarts.js"
import { memorySaverOfThisProcess } from "./observability/memorySaver.js"
import { formatStartupLines, jsonProcessWarnings, logFormatOf, type StartupLine, warningLine } from "./observability/startupLines.js"
import { checkStartupConfig } from "./startupCheck.js"
import { installTurnBufferedConsole } from "./observability/turnBufferedConsole.js"

installTurnBufferedConsole()

const devMode = process.argv.includes("--dev")
const dev = devMode ? devEnvironment(process.env) : { overrides: {}, apiKey: null, notices: [] }

// One flat provider (the environment, with development defaults filled in) so a bad value is reported once.
const environment = Object.entries({ ...process.env, ...dev.overrides }).filter(
  (entry): entry is [string, string] => entry[1] !== undefined
)
const configProvider = ConfigProvider.fromMap(new Map(environment))
// Read before the configuration is: the lines printed before the logger exists follow LOG_FORMAT too.
const logFormat = logFormatOf(new Map(environment).get("LOG_FORMAT"))
jsonProcessWarnings(logFormat)

/** What an error wraps (a SqlError's driver error says what PostgreSQL answered; its own message does not). */
const underlying = (error: unknown, depth = 0): Array<string> => {
  const inner = error instanceof Error ? error.cause : undefined
  return inner instanceof Error && depth < 4 ? [`caused by: ${inner.message}`, ...underlying(inner, depth + 1)] : []
}

/** A failed start says why on stderr (a configuration error names the variable) and exits non-zero. */
const reportStartupFailure = (cause: Cause.Cause<unknown>) =>
  Effect.sync(() => {
    const wrapped = [...Cause.failures(cause), ...Cause.defects(cause)].flatMap(underlying)
    const reason = [Cause.pretty(cause), ...wrapped].join("\n")
    console.error(formatStartupLines(logFormat, [{ level: "ERROR", text: `agent-custody could not start:\n${reason}`, message: "agent-custody could not start", annotations: { cause: reason } }]))
    process.exitCode = 1
  })

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"])

/**
 * The start: the configuration checked, the child servers started early, the modules loaded, the layers launched.
 * An async function rather than top-level await: the build runs this module as CommonJS (serviceCodeCache.ts).
 */
const start = async () => {
  const checked = await Effect.runPromiseExit(checkStartupConfig.pipe(Effect.withConfigProvider(configProvider)))
  if (Exit.isFailure(checked)) {
    await Effect.runPromise(reportStartupFailure(checked.cause))
    return
  }
  // The entry set the mode before compiling anything (observability/memorySaver.ts); its warning goes out here.
  const memorySaver = memorySaverOfThisProcess(checked.value.memorySaver)
  if (memorySaver._tag !== "Off" && memorySaver.warning !== undefined) {
    console.error(formatStartupLines(logFormat, [warningLine(memorySaver.warning)]))
  }
  // The local ledger and the embedded PostgreSQL start while the modules below load (headStarts.ts), once their
  // own processes have them: the embedded server's first steps would otherwise wait behind the module loading.
  const stopAskedWhileLoading = watchStopWhileLoading()
  await startChildServersEarly(checked.value)
  // NodeRuntime alone: the package's index would load its cluster, worker and client modules too
  const [NodeRuntime, { AppLive }, { ChainEndpointsLive }] = await Promise.all([
    import("@effect/platform-node/NodeRuntime"),
    import("./app.js"),
    import("./chain/endpointsLayer.js")
  ]).catch(async (error: unknown) => {
    // a module that cannot load (a broken build) ends the start: what began early stops with it
    await stopUntakenChildServers()
    throw error
  })

  const announce = Effect.gen(function* () {
    const config = yield* AppConfig
    const { host } = config.gateway
    const shownHost = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host
    const base = `http://${shownHost}:${config.ports.gateway}`
    const lines: Array<StartupLine> = [
      { level: "INFO", text: `agent-custody gateway listening on ${base}`, message: "agent-custody gateway listening", annotations: { url: base, host, port: config.ports.gateway } },
      ...dev.notices.map((notice): StartupLine => ({ level: "INFO", text: notice, message: notice }))
    ]
    if (dev.apiKey !== null) {
      const credentialsFile = path.join(config.dataDir, "dev-credentials.json")
      if (!LOOPBACK.has(host)) {
        const warning = `listening on ${host} with a development key of tenant * and scope all: anyone who can reach this port can use it (unset API_GATEWAY_HOST, or configure API_GATEWAY_API_KEYS)`
        lines.push(warningLine(warning, { host }))
      }
      const curl = (key: string) =>
        `curl -s -X POST ${base}/api/v1/wallets -H 'x-api-key: ${key}' -H 'content-type: application/json' -d '{"label":"first","autoFund":true,"fundLamports":2000000000}'`
      // JSON lines go to log shippers: the key stays in its file (mode 0600) there.
      lines.push(
        { level: "INFO", text: `development API key (tenant *, scope all): ${dev.apiKey}`, message: "development API key (tenant *, scope all) created", annotations: { credentialsFile } },
        { level: "INFO", text: `try: ${curl(dev.apiKey)}`, message: "try the first request", annotations: { curl: curl(`$(jq -r .apiKey ${credentialsFile})`) } }
      )
    }
    yield* Effect.sync(() => console.log(formatStartupLines(config.observability.logFormat, lines)))
    // what the start compiled is on disk now, not only at a clean exit (a process killed later keeps it)
    yield* Effect.sync(flushCompileCache)
  })

  const MainLive = Layer.effectDiscard(announce).pipe(
    Layer.provideMerge(AppLive),
    Layer.provide(ChainEndpointsLive),
    // the configuration the check above read and validated (reading it again costs ~5,000 Effect operations)
    Layer.provideMerge(Layer.succeed(AppConfig, checked.value))
  )

  // LOG_FORMAT=json: JSON from the first line every layer logs (not only once the app's logging layer is
  // built), and no pretty logger beside it.
  Layer.launch(MainLive).pipe(
    // stopped while the modules loaded: nothing is launched (the child servers started early are stopped below)
    (launch) => (stopAskedWhileLoading() === undefined ? launch : Effect.interrupt),
    Effect.withConfigProvider(configProvider),
    // a start that fails or is stopped before its layers took the child servers started early stops them
    Effect.ensuring(Effect.promise(stopUntakenChildServers)),
    Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : reportStartupFailure(cause))),
    logFormat === "json" ? Effect.provide(Logger.json) : (effect) => effect,
    NodeRuntime.runMain({ disablePrettyLogger: logFormat === "json" })
  )
}

// a start that throws (a module of a broken build) ends the process with its error, as an uncaught one
void start()
