/**
 * The two child servers a start waits for, the local ledger (no CHAIN_RPC_URL) and the embedded PostgreSQL
 * (no DATABASE_URL), started by startService.ts while the service's modules load instead of after them (the
 * ledger child loads modules of its own for about as long): a restart with both took 1.5 s, now 1.2 s
 * (docs/decisions/production.md). The layers that need them (chain/endpointsLayer.ts, db/database.ts)
 * take the one started here, or start their own where nothing was (tests, other entry points), with the
 * same arguments either way: this file is the one place that says how each is started.
 */
import { Option } from "effect"
import * as path from "node:path"
import { type AppConfigShape, LOCAL_ESCROW_PROGRAM_ID } from "./config.js"
import { openEmbeddedServer } from "./db/embeddedServer.js"
import { spawnLedger, type SpawnedLedger } from "./ledger/spawn.js"

type OpenedEmbeddedServer = Awaited<ReturnType<typeof openEmbeddedServer>>

interface HeadStart {
  readonly started: Promise<unknown>
  /** Stops what was started, when no layer took it (a start that failed first). */
  readonly stop: () => Promise<void>
}

const untaken = new Map<string, HeadStart>()

const ledgerOptions = (config: AppConfigShape) => ({
  port: config.ports.ledger,
  dataDir: path.resolve(config.dataDir),
  env: { ESCROW_PROGRAM_ID: Option.getOrElse(config.escrowProgramId, () => LOCAL_ESCROW_PROGRAM_ID) }
})
const ledgerKey = (options: ReturnType<typeof ledgerOptions>) => `ledger ${options.port} ${options.dataDir} ${options.env.ESCROW_PROGRAM_ID}`
const databaseKey = (dataDir: string) => `embedded PostgreSQL ${path.resolve(dataDir)}`

const take = <A>(key: string): Promise<A> | undefined => {
  const headStart = untaken.get(key)
  untaken.delete(key)
  return headStart?.started as Promise<A> | undefined
}

const begin = <A>(key: string, start: () => Promise<A>, stop: (running: A) => Promise<void>) => {
  const started = start()
  // Its layer awaits it and reports a failure; until then a rejection is not unhandled.
  started.catch(() => undefined)
  untaken.set(key, { started, stop: () => started.then(stop, () => undefined) })
}

/** The local ledger of this configuration: the one startService.ts started, else a new child. */
export const localLedger = (config: AppConfigShape): Promise<SpawnedLedger> => {
  const options = ledgerOptions(config)
  return take<SpawnedLedger>(ledgerKey(options)) ?? spawnLedger(options)
}

/** The embedded PostgreSQL of DATA_DIR: the one startService.ts opened, else opened now. */
export const embeddedDatabase = (dataDir: string): Promise<OpenedEmbeddedServer> =>
  take<OpenedEmbeddedServer>(databaseKey(dataDir)) ?? openEmbeddedServer(dataDir)

/**
 * startService.ts, once the configuration is checked and before the service's modules load. Resolves once both are in
 * their own processes' hands (the embedded server's pg_ctl or initdb spawned, or a running server found): the
 * steps before that take a few event-loop turns, which the module loading would hold up for most of a second.
 */
export const startChildServersEarly = (config: AppConfigShape): Promise<void> => {
  if (Option.isNone(config.chain.rpcUrl)) {
    const options = ledgerOptions(config)
    begin(ledgerKey(options), () => spawnLedger(options), (ledger) => ledger.stop())
  }
  if (Option.isNone(config.databaseUrl)) {
    return new Promise((underway) =>
      begin(databaseKey(config.dataDir), () => openEmbeddedServer(config.dataDir, { onUnderway: underway }), (opened) => opened.release())
    )
  }
  return Promise.resolve()
}

/**
 * A stop (SIGINT, SIGTERM) asked while the modules load, before the runtime handles signals, would kill the
 * process at once and leave the embedded server running: noted instead, and answered once they have loaded
 * (startService.ts then launches nothing and stops what started early). Returns the check, which ends the watch.
 */
export const watchStopWhileLoading = () => {
  let asked: NodeJS.Signals | undefined
  const note = (signal: NodeJS.Signals) => {
    asked = signal
  }
  process.on("SIGINT", note)
  process.on("SIGTERM", note)
  return (): NodeJS.Signals | undefined => {
    process.off("SIGINT", note)
    process.off("SIGTERM", note)
    return asked
  }
}

/** What no layer took (the start failed or was stopped first) is stopped: the embedded server outlives its process otherwise. */
export const stopUntakenChildServers = async () => {
  const left = [...untaken.values()]
  untaken.clear()
  await Promise.all(left.map((headStart) => headStart.stop()))
}
