/**
 * The embedded PostgreSQL's own start (db/embeddedServer.ts), as the service's start uses it: opened means a
 * connection works at once (its readiness is read from postmaster.pid, not only from `pg_ctl -w`), opens racing
 * on one cluster share one server, a server killed with SIGKILL is started again with its committed rows, and
 * each open says once when its server's start is in other hands (the service's start waits for that).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { afterAll, describe, it } from "vitest"
import { CLUSTER_FOLDER, type EmbeddedServer, openEmbeddedServer, readPidFile, stopEmbeddedServer } from "../../src/db/embeddedServer.js"
import { isRunning } from "../support/processTree.js"
import { waitFor } from "../support/wait.js"

const dataDirs: Array<string> = []
const freshDataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-embedded-"))
  dataDirs.push(dir)
  return dir
}

afterAll(async () => {
  for (const dir of dataDirs) {
    await stopEmbeddedServer(dir)
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

/** One connection attempt, no retry: what a layer does right after the open. */
const query = async (server: EmbeddedServer, sql: string) => {
  const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 5_000 })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

const postmasterPid = (dataDir: string) => readPidFile(path.join(dataDir, CLUSTER_FOLDER))?.pid

describe("the embedded PostgreSQL's start", () => {
  it("three opens racing on a new cluster share one server, each answering at once and saying once it is underway", { timeout: 120_000 }, async ({ expect }) => {
    const dataDir = freshDataDir()
    const underway = [0, 0, 0]
    const opened = await Promise.all(underway.map((_, i) => openEmbeddedServer(dataDir, { onUnderway: () => underway[i]++ })))

    expect(new Set(opened.map(({ server }) => server.port)).size).toBe(1)
    for (const { server } of opened) expect(await query(server, "SELECT 1 AS one")).toEqual([{ one: 1 }])
    expect(underway).toEqual([1, 1, 1])
  })

  it("a server killed with SIGKILL is started again by the next open, its committed rows kept", { timeout: 120_000 }, async ({ expect }) => {
    const dataDir = freshDataDir()
    const first = await openEmbeddedServer(dataDir)
    await query(first.server, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('before the kill')")
    const killed = postmasterPid(dataDir)
    if (killed === undefined) throw new Error("no server runs after the open")
    process.kill(killed, "SIGKILL")
    await waitFor("the killed server's exit", () => !isRunning(killed), 10_000, 20)

    let underway = 0
    const again = await openEmbeddedServer(dataDir, { onUnderway: () => underway++ })
    expect(postmasterPid(dataDir)).not.toBe(killed)
    expect(await query(again.server, "SELECT note FROM kept")).toEqual([{ note: "before the kill" }])
    expect(underway).toBe(1)
  })
})
