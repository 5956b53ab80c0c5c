/**
 * vitest globalSetup: unless TEST_DATABASE_URL names a server, starts one embedded PostgreSQL (the
 * service's own default, src/db/embeddedServer.ts) in a temp dir for the whole run and points
 * TEST_DATABASE_URL at it, so each test file creates its own database there as on any server
 * (test/support/database.ts, processes.ts). The test files' forks inherit the variable.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { openEmbeddedServer } from "../../src/db/embeddedServer.js"

export default async function setup() {
  if ((process.env.TEST_DATABASE_URL ?? "").trim() !== "") return
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-test-postgres-"))
  // Throwaway data: no flush to disk (a crash of the machine loses only the run).
  const opened = await openEmbeddedServer(dataDir, { settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: "400" } })
  process.env.TEST_DATABASE_URL = opened.server.url
  return async () => {
    await opened.stop()
    delete process.env.TEST_DATABASE_URL
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
