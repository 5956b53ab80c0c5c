/**
 * vitest globalSetup: unless TEST_DATABASE_URL names a server, starts one embedded PostgreSQL (the
 * service's own default, src/db/embeddedServer.ts) in a temp dir for the whole run and points
 * TEST_DATABASE_URL at it, so each test file creates its own database there as on any server
 * (test/support/database.ts, processes.ts). On either server it then migrates one template database that
 * test/support/database.ts copies (templateDatabase.ts). The test files' forks inherit both variables.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { openEmbeddedServer } from "../../src/db/embeddedServer.js"
import { createTemplateDatabase } from "./templateDatabase.js"

export default async function setup() {
  const given = (process.env.TEST_DATABASE_URL ?? "").trim() !== ""
  const dataDir = given ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), "custody-test-postgres-"))
  // Throwaway data: no flush to disk (a crash of the machine loses only the run).
  const opened =
    dataDir === undefined
      ? undefined
      : await openEmbeddedServer(dataDir, { settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: "400" } })
  if (opened !== undefined) process.env.TEST_DATABASE_URL = opened.server.url
  const template = await createTemplateDatabase(process.env.TEST_DATABASE_URL!)
  process.env.TEST_TEMPLATE_DATABASE = template.name
  return async () => {
    await template.drop()
    delete process.env.TEST_TEMPLATE_DATABASE
    if (opened === undefined || dataDir === undefined) return
    await opened.stop()
    delete process.env.TEST_DATABASE_URL
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
