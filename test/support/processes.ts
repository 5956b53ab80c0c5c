/**
 * Service processes for multi-process tests and benchmarks: the real entry point as a child, a separately
 * spawned ledger, and a fresh PostgreSQL database. Under vitest a service runs the build, as `npm run start:prod`
 * runs it (`node <its flags> dist/main.js`, built once per test run: serviceBuild.ts), and a development start
 * (`dev`) the sources, as `npm start` runs them (`tsx src/main.ts --dev`); a benchmark says which it runs
 * (`built`). Every child is tracked and killed (with its whole process group: tsx runs the service in a
 * grandchild) by `killAllChildren`, which also runs when this process exits.
 *
 * PostgreSQL: the server of TEST_DATABASE_URL (under vitest always set: the machine's server, or the
 * embedded one test/support/globalDatabase.ts starts for the run); outside vitest (benchmarks) the
 * local server at postgres://postgres@127.0.0.1:5432/postgres. A fresh database is created per test
 * file and dropped afterwards. A service started with no `databaseUrl` runs its own embedded server
 * under its DATA_DIR, as `npm start` does.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import pg from "pg"
import type { CreatedWallet } from "../../schemas/api/wallets.js"
import { spawnLedger, type SpawnedLedger } from "../../src/ledger/spawn.js"
import { freePort, freePortPair } from "./freePort.js"
import { assertMatchesContract } from "./contract.js"
import { assertLamportsAreNumbers } from "./lamportFields.js"
import { buildOnceForThisRun } from "./serviceBuild.js"

export const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..")
export const SERVICE_API_KEY = "process-test-admin-key"
export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"

/** The PostgreSQL server used for a fresh database: TEST_DATABASE_URL, else the local default. */
export const postgresAdminUrl = () => {
  const configured = (process.env.TEST_DATABASE_URL ?? "").trim()
  return configured === "" ? DEFAULT_POSTGRES_URL : configured
}

export interface FreshDatabase {
  readonly url: string
  /** Runs one query on the database (with a short-lived client). */
  readonly query: <T extends pg.QueryResultRow>(text: string, values?: Array<unknown>) => Promise<Array<T>>
  readonly drop: () => Promise<void>
}

export const createPostgresDatabase = async (adminUrl = postgresAdminUrl()): Promise<FreshDatabase> => {
  const name = `t_${randomBytes(6).toString("hex")}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect().catch((error: unknown) => {
    throw new Error(
      `these tests need PostgreSQL: none answers at ${adminUrl} (set TEST_DATABASE_URL to a server where the user may CREATE DATABASE): ${String(error)}`
    )
  })
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const databaseUrl = url.toString()
  return {
    url: databaseUrl,
    query: async <T extends pg.QueryResultRow>(text: string, values?: Array<unknown>) => {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      try {
        return (await client.query<T>(text, values)).rows
      } finally {
        await client.end()
      }
    },
    drop: async () => {
      const dropper = new pg.Client({ connectionString: adminUrl })
      await dropper.connect()
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await dropper.end()
      }
    }
  }
}

/**
 * Under vitest the children the tests start themselves (a ledger, a wallet engine) run the build, as the service's
 * own children do once it runs the build (a second or two sooner each than under tsx); benchmarks keep the sources.
 */
export const childFromBuild = async (): Promise<boolean> => {
  if (process.env.VITEST === undefined) return false
  await buildOnceForThisRun()
  return true
}

export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

/**
 * A ledger child on a free port pair, on a new pair when that one was taken before the child bound it: the
 * OS hands out even ports to bind(0) and odd ones to outgoing connections, so the PubSub port (RPC + 1) can
 * go to another file's connection in the second the child takes to start.
 */
export const spawnLedgerOnFreePorts = async (dataDir: string): Promise<SpawnedLedger> => {
  const built = await childFromBuild()
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnLedger({ port: await freePortPair(), dataDir, built })
    } catch (error) {
      if (attempt >= 4 || !(error instanceof Error && error.message.includes("EADDRINUSE"))) throw error
    }
  }
}

/** A ledger child process of its own (killing a service does not kill it). */
export const startLedgerProcess = async (): Promise<SpawnedLedger & { dataDir: string; close: () => Promise<void> }> => {
  const dataDir = tempDir("custody-ledger-")
  const ledger = await spawnLedgerOnFreePorts(dataDir)
  return {
    ...ledger,
    dataDir,
    close: async () => {
      await ledger.stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

export interface ServiceProcess {
  readonly baseUrl: string
  readonly port: number
  readonly pid: number
  /** Everything the child printed so far (stdout and stderr). */
  readonly output: () => string
  /** Sends a signal to the service's whole process group (tsx and the node process running main.ts). */
  readonly kill: (signal: NodeJS.Signals) => void
  /** Resolves when the child has exited. */
  readonly exited: Promise<void>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
  readonly stop: (graceMs?: number) => Promise<void>
}

export interface ServiceProcessOptions {
  readonly databaseUrl?: string
  readonly dataDir: string
  /** The ledger; without it the service starts its own local ledger child (on LEDGER_PORT of `env`). */
  readonly rpcUrl?: string
  readonly env?: Record<string, string>
  readonly port?: number
  readonly readyTimeoutMs?: number
  /**
   * Node flags for the service (e.g. --cpu-prof, which NODE_OPTIONS refuses): `node <flags> dist/main.js` for the
   * build, and the sources then run as `node <flags> --import tsx src/main.ts` instead of through the tsx CLI.
   */
  readonly nodeArgs?: ReadonlyArray<string>
  /** As `npm start`: `--dev` (development credentials under DATA_DIR) and no WALLET_KEY_ENCRYPTION_SECRET. */
  readonly dev?: boolean
  /**
   * Runs the production build as `npm run start:prod` does (`node <flags> dist/main.js`), or the sources under tsx.
   * Under vitest the build unless `dev` (made once per run: serviceBuild.ts); elsewhere the sources unless set
   * (a benchmark runs `npm run build` first).
   */
  readonly built?: boolean
  /** The start script whose node flags and NAME=value settings the process takes; SERVICE_SCRIPT otherwise. */
  readonly script?: string
}

const children = new Set<ChildProcess>()

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // Already gone.
  }
}

/** Kills every service child still running (the whole group, SIGKILL). Safe to call more than once. */
export const killAllChildren = () => {
  for (const child of children) killGroup(child, "SIGKILL")
  children.clear()
}
process.once("exit", killAllChildren)

const scriptWords = (script: string): ReadonlyArray<string> => {
  const command = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts[script]
  if (command === undefined) throw new Error(`package.json has no script ${script}`)
  return command.split(/\s+/)
}

/** The node flags of a start script of package.json (`[NAME=value ...] node <flags> dist/main.js`). */
export const nodeFlagsOfScript = (script: string): ReadonlyArray<string> => scriptWords(script).filter((argument) => argument.startsWith("--"))

/** The environment a start script of package.json sets before `node` (`NAME=value node ...`). */
export const nodeEnvOfScript = (script: string): Record<string, string> => {
  const words = scriptWords(script)
  const assignments = words.slice(0, words.indexOf("node")).filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word))
  return Object.fromEntries(assignments.map((word) => [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)]))
}

/**
 * The start script of package.json the service processes run as: `start:prod` (as deployed), or SERVICE_SCRIPT
 * (e.g. `start:prod:lean`) for a benchmark of another profile.
 */
export const SERVICE_SCRIPT: string = process.env.SERVICE_SCRIPT ?? "start:prod"

/** The node flags of SERVICE_SCRIPT. SERVICE_NODE_FLAGS (space-separated) replaces them, for a benchmark comparing settings. */
export const SERVICE_NODE_FLAGS: ReadonlyArray<string> =
  process.env.SERVICE_NODE_FLAGS === undefined
    ? nodeFlagsOfScript(SERVICE_SCRIPT)
    : process.env.SERVICE_NODE_FLAGS.split(/\s+/).filter((argument) => argument.startsWith("--"))

/** The NAME=value settings of SERVICE_SCRIPT (start:prod:lean's LD_PRELOAD), set as npm would set them. */
export const SERVICE_SCRIPT_ENV: Record<string, string> = nodeEnvOfScript(SERVICE_SCRIPT)

/**
 * The node binary a service process runs on: this process's own, or SERVICE_NODE (a path): benchmarks comparing
 * Node.js versions, and CI's run of the production build on Node 24. The service starts its ledger child with it.
 */
export const SERVICE_NODE: string = process.env.SERVICE_NODE ?? process.execPath

/** Starts the service (the build, or the sources under tsx: `built`) and resolves once the gateway announced it listens. */
export const startServiceProcess = async (options: ServiceProcessOptions): Promise<ServiceProcess> => {
  const underVitest = process.env.VITEST !== undefined
  const built = options.built ?? (underVitest && options.dev !== true)
  if (built && underVitest) await buildOnceForThisRun()
  const port = options.port ?? (await freePort())
  const mode = options.dev === true ? ["--dev"] : []
  const flags = options.script === undefined ? SERVICE_NODE_FLAGS : nodeFlagsOfScript(options.script)
  const scriptEnv = options.script === undefined ? SERVICE_SCRIPT_ENV : nodeEnvOfScript(options.script)
  const [command, args] =
    built
      ? [SERVICE_NODE, [...flags, ...(options.nodeArgs ?? []), "dist/main.js", ...mode]]
      : options.nodeArgs === undefined
        ? [path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), [...flags, "src/main.ts", ...mode]]
        : [SERVICE_NODE, [...flags, ...options.nodeArgs, "--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href, "src/main.ts", ...mode]]
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    // Its own process group, so one signal reaches tsx and the node process it runs main.ts in.
    detached: true,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? os.tmpdir(),
      ...scriptEnv,
      DATA_DIR: options.dataDir,
      ...(options.rpcUrl === undefined ? {} : { CHAIN_RPC_URL: options.rpcUrl }),
      API_GATEWAY_PORT: String(port),
      API_GATEWAY_API_KEYS: `${SERVICE_API_KEY}:*:all`,
      API_GATEWAY_RATE_LIMIT_PER_MINUTE: "10000000",
      DATABASE_POOL_SIZE: "10",
      ...(options.dev === true ? {} : { WALLET_KEY_ENCRYPTION_SECRET: "process-test-key-encryption-secret" }),
      ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
      ...options.env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  let text = ""
  const append = (chunk: Buffer) => {
    text += chunk.toString()
    // Keep the tail only: a long benchmark must not grow this without bound.
    if (text.length > 200_000) text = text.slice(-100_000)
  }
  child.stdout?.on("data", append)
  child.stderr?.on("data", append)
  const exited = new Promise<void>((resolve) => {
    if (!isRunning(child)) resolve()
    else child.once("exit", () => resolve())
  })
  void exited.then(() => children.delete(child))

  const kill = (signal: NodeJS.Signals) => killGroup(child, signal)
  const stop = async (graceMs = 10_000) => {
    if (!isRunning(child)) return
    kill("SIGTERM")
    const timer = setTimeout(() => kill("SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
    // The grandchild may outlive tsx by a moment: make sure the group is gone.
    kill("SIGKILL")
  }

  const timeoutMs = options.readyTimeoutMs ?? 90_000
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`the service did not start within ${timeoutMs} ms:\n${text}`))
      }, timeoutMs)
      const check = () => {
        // The announcement, in text ("... listening on <url>") or JSON ("message":"agent-custody gateway listening").
        if (!text.includes("agent-custody gateway listening")) return
        cleanup()
        resolve()
      }
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        cleanup()
        reject(new Error(`the service exited (${String(code ?? signal)}) before it was ready:\n${text}`))
      }
      const cleanup = () => {
        clearTimeout(timer)
        child.stdout?.off("data", check)
        child.off("exit", onExit)
      }
      child.stdout?.on("data", check)
      child.once("exit", onExit)
      check()
    })
  } catch (error) {
    kill("SIGKILL")
    throw error
  }
  const pid = child.pid
  if (pid === undefined) throw new Error("service child has no pid")
  return { baseUrl: `http://127.0.0.1:${port}`, port, pid, output: () => text, kill, exited, stop }
}

/**
 * fetch + JSON with the process tests' admin key. As `api()`, `D` names the data a test reads (it defaults
 * to `unknown`): `call<WireDataOf<typeof TransactionsApi.get>>(...)`.
 */
export const call = async <D = unknown>(baseUrl: string, method: string, urlPath: string, body?: unknown) => {
  const response = await fetch(baseUrl + urlPath, {
    method,
    headers: { "x-api-key": SERVICE_API_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = (await response.json()) as { status: "success" | "failure"; errorCode: string | null; data: D; error?: string }
  assertLamportsAreNumbers(json, `${method} ${urlPath}`)
  await assertMatchesContract(baseUrl, method, urlPath, response.status, json)
  return { status: response.status, body: json }
}

/** A funded wallet created over HTTP. */
export const createFundedWallet = async (baseUrl: string, lamports: number) => {
  const response = await call<typeof CreatedWallet.Encoded | null>(baseUrl, "POST", "/api/v1/wallets", { autoFund: true, fundLamports: lamports })
  const wallet = response.body.data
  if (response.status !== 201 || wallet?.funding?.ok !== true) {
    throw new Error(`funded wallet create failed: ${response.status} ${JSON.stringify(response.body)}`)
  }
  return wallet
}

/** Runs `task` over `items` with at most `concurrency` in flight; results in input order. */
export const mapConcurrent = async <A, B>(items: ReadonlyArray<A>, concurrency: number, task: (item: A, index: number) => Promise<B>) => {
  const results = new Array<B>(items.length)
  let next = 0
  const lane = async () => {
    for (;;) {
      const index = next++
      if (index >= items.length) return
      results[index] = await task(items[index]!, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane))
  return results
}

/** A minimal JSON-RPC call to the ledger. */
export const ledgerRpc = async <T>(rpcUrl: string, method: string, params: Array<unknown> = []): Promise<T> => {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  const body = (await response.json()) as { result?: T; error?: { message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

/**
 * What several service processes share (the several-process tests): one ledger, one fresh PostgreSQL
 * database and one DATA_DIR (the wallet keys). `startService` starts another process on them; `close`
 * stops every process and removes all of it.
 */
export const startSharedDeployment = async (dataDirPrefix: string) => {
  const ledger = await startLedgerProcess()
  let database: FreshDatabase | undefined
  try {
    database = await createPostgresDatabase()
  } catch (error) {
    await ledger.close()
    throw error
  }
  const db = database
  const dataDir = tempDir(dataDirPrefix)
  const services: Array<ServiceProcess> = []
  return {
    ledger,
    database: db,
    dataDir,
    /** A service process on the deployment's database, data directory and ledger; `options` as startServiceProcess's. */
    startService: async (env: Record<string, string>, options: Pick<ServiceProcessOptions, "nodeArgs" | "script"> = {}) => {
      const service = await startServiceProcess({ ...options, databaseUrl: db.url, dataDir, rpcUrl: ledger.rpcUrl, env })
      services.push(service)
      return service
    },
    close: async () => {
      await Promise.all(services.map((service) => service.stop(5_000)))
      killAllChildren()
      await ledger.close()
      await db.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
export type SharedDeployment = Awaited<ReturnType<typeof startSharedDeployment>>

export interface EntryProcess {
  readonly pid: number
  readonly output: () => string
  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves once it is gone. */
  readonly stop: (graceMs?: number) => Promise<void>
}

/**
 * Another entry point of the project (e.g. src/wallet/mpc/nodeMain.ts) as a tracked child with only
 * `env` (plus PATH and HOME), resolved once it printed `readyText`.
 */
export const startEntryProcess = async (script: string, env: Record<string, string>, readyText: string, readyTimeoutMs = 60_000): Promise<EntryProcess> => {
  const child = spawn(path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), [script], {
    cwd: PROJECT_ROOT,
    detached: true,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  let text = ""
  child.stdout?.on("data", (chunk: Buffer) => void (text += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => void (text += chunk.toString()))
  const exited = new Promise<void>((resolve) => (isRunning(child) ? child.once("exit", () => resolve()) : resolve()))
  void exited.then(() => children.delete(child))
  const deadline = Date.now() + readyTimeoutMs
  while (!text.includes(readyText)) {
    if (!isRunning(child) || Date.now() > deadline) {
      killGroup(child, "SIGKILL")
      throw new Error(`${script} did not start:\n${text}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const stop = async (graceMs = 5_000) => {
    if (!isRunning(child)) return
    killGroup(child, "SIGTERM")
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
    killGroup(child, "SIGKILL")
  }
  return { pid: child.pid!, output: () => text, stop }
}
