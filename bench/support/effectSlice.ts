/**
 * bench:runtime's slice: the create-shaped request of effectSliceServer.mjs, served by each copy of Effect in
 * its own process on one fresh database, 32 clients that each post again when answered; the server's CPU per
 * request (from its own process.cpuUsage) and the requests answered a second, in alternating rounds.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { once } from "node:events"
import { createServer } from "node:net"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { request } from "undici"
import { createPostgresDatabase } from "../../test/support/processes.js"
import { benchPostgresUrl } from "./postgresUrl.js"

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "effectSliceServer.mjs")
const CLIENTS = 32

export interface SliceFigures {
  readonly label: string
  readonly microsPerRequest: ReadonlyArray<number>
  readonly perSecond: ReadonlyArray<number>
}

const freePort = async () => {
  const probe = createServer().listen(0, "127.0.0.1")
  await once(probe, "listening")
  const { port } = probe.address() as { port: number }
  probe.close()
  return port
}

const BODY = JSON.stringify({ walletId: "c12c3a7f-547c-4d4d-89e0-5309705ff878", amount: "1000", destination: "25WVbPNdCk2N9aLu87kutvRnqMuHwG7hYMej2uFUYSyn" })

const post = async (base: string) => {
  const answer = await request(`${base}/create`, { method: "POST", body: BODY, headers: { "content-type": "application/json" } })
  const body = (await answer.body.json()) as { status: string }
  if (body.status !== "success") throw new Error(`the slice server answered ${JSON.stringify(body)}`)
}

const serverMicros = async (base: string) => ((await (await request(`${base}/cpu`)).body.json()) as { micros: number }).micros

const closedLoop = async (base: string, count: number) => {
  let left = count
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (left-- > 0) await post(base)
  }))
}

/** Starts the slice server on the packages under `effectDir`; undefined (with the reason printed) when they cannot serve it. */
const startServer = async (effectDir: string, databaseUrl: string): Promise<{ base: string; child: ChildProcess } | undefined> => {
  const port = await freePort()
  const child = spawn(process.execPath, [SERVER], { env: { ...process.env, EFFECT_DIR: effectDir, PORT: String(port), DATABASE_URL: databaseUrl }, stdio: ["ignore", "ignore", "pipe"] })
  let errors = ""
  child.stderr?.on("data", (chunk: Buffer) => { errors += chunk.toString() })
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) break
    try {
      await serverMicros(base)
      return { base, child }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  child.kill()
  console.log(`slice: the packages under ${effectDir} could not serve it (${errors.trim().split("\n").slice(-1)[0] ?? "no answer"}); skipped`)
  return undefined
}

export const runSlice = async (runtimes: ReadonlyArray<{ readonly label: string; readonly dir: string }>, options: { rounds: number; warmup: number; requests: number }) => {
  const database = await createPostgresDatabase(benchPostgresUrl())
  const servers: Array<{ label: string; base: string; child: ChildProcess; micros: Array<number>; perSecond: Array<number> }> = []
  try {
    await database.query(`CREATE TABLE slice_requests (id serial PRIMARY KEY, wallet_id text NOT NULL, amount text NOT NULL, destination text NOT NULL,
      status text NOT NULL DEFAULT 'pending', created_at timestamptz NOT NULL DEFAULT now())`)
    for (const runtime of runtimes) {
      const started = await startServer(runtime.dir, database.url)
      if (started !== undefined) servers.push({ label: runtime.label, ...started, micros: [], perSecond: [] })
    }
    for (const server of servers) await closedLoop(server.base, options.warmup)
    for (let round = 0; round < options.rounds; round++) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const before = await serverMicros(server.base)
        const startedAt = performance.now()
        await closedLoop(server.base, options.requests)
        const seconds = (performance.now() - startedAt) / 1000
        const used = (await serverMicros(server.base)) - before
        server.micros.push(used / options.requests)
        server.perSecond.push(options.requests / seconds)
      }
    }
    return servers.map((server): SliceFigures => ({ label: server.label, microsPerRequest: server.micros, perSecond: server.perSecond }))
  } finally {
    for (const server of servers) server.child.kill()
    await database.drop()
  }
}
