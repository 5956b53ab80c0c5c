/**
 * Issued API keys across real service processes (issue 36): two `tsx src/main.ts` processes on one
 * PostgreSQL database, each on its own DATA_DIR. A key issued on the first works on the second within a
 * second and stops there within a second of its revocation, with no restart; afterwards neither process's
 * log output nor a `pg_dump` of the database holds the key: the dump has its prefix and its SHA-256 only.
 * No ledger is needed (a dead RPC URL).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { KeysApi } from "../../schemas/api/keys.js"
import type { WireDataOf } from "../support/client.js"
import {
  createPostgresDatabase,
  type FreshDatabase,
  killAllChildren,
  SERVICE_API_KEY,
  type ServiceProcess,
  startServiceProcess,
  tempDir
} from "../support/processes.js"
import { waitFor } from "../support/wait.js"

let database: FreshDatabase | undefined
const dataDirs: Array<string> = []
let first: ServiceProcess | undefined
let second: ServiceProcess | undefined

const start = async () => {
  const dataDir = tempDir("custody-keys-")
  dataDirs.push(dataDir)
  return startServiceProcess({ databaseUrl: database!.url, dataDir, rpcUrl: "http://127.0.0.1:9", env: { LOG_FORMAT: "json" } })
}

beforeAll(async () => {
  database = await createPostgresDatabase()
  try {
    first = await start()
    second = await start()
  } catch (error) {
    killAllChildren()
    throw error
  }
}, 240_000)

afterAll(async () => {
  await Promise.all([first?.stop(5_000), second?.stop(5_000)])
  killAllChildren()
  await database?.drop()
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true })
}, 60_000)

const request = async <D = unknown>(service: ServiceProcess, method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(service.baseUrl + path, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, text: await response.text() }
}

const walletsStatus = async (service: ServiceProcess, key: string) => (await request(service, "GET", "/api/v1/wallets", key)).status

describe("a key issued on one process", () => {
  let secret = ""
  let id = ""

  it("works on the other within a second, and stops there within a second of its revocation", async () => {
    // The second is measured once both processes are past their start: a first key issued and seen there (however
    // long a just-started process takes for its first request and its LISTEN connection), then the timed one.
    const warmUp = await request(first!, "POST", "/api/v1/keys", SERVICE_API_KEY, { tenant: "tenant-a", scopes: ["wallets"], label: "warm-up" })
    expect(warmUp.status).toBe(201)
    const warmUpSecret = (JSON.parse(warmUp.text) as { data: WireDataOf<typeof KeysApi.issue> }).data.secret
    await waitFor("the warm-up key on the second process", async () => (await walletsStatus(second!, warmUpSecret)) === 200, 30_000, 50)

    const issued = await request(first!, "POST", "/api/v1/keys", SERVICE_API_KEY, { tenant: "tenant-a", scopes: ["wallets"], label: "across processes" })
    expect(issued.status).toBe(201)
    const key = (JSON.parse(issued.text) as { data: WireDataOf<typeof KeysApi.issue> }).data
    secret = key.secret
    id = key.id
    await waitFor("the key on the second process", async () => (await walletsStatus(second!, secret)) === 200, 1_000, 20)
    expect(await walletsStatus(first!, secret)).toBe(200)
    // A failed use with the right id and a wrong secret is logged nowhere with either secret.
    expect(await walletsStatus(second!, secret.slice(0, -8) + "AAAAAAAA")).toBe(401)

    const revoked = await request(first!, "POST", `/api/v1/keys/${id}/revoke`, SERVICE_API_KEY, { reason: "end of test" })
    expect(revoked.status).toBe(200)
    expect(revoked.text).not.toContain(secret)
    await waitFor("the revoked key to be refused on the second process", async () => (await walletsStatus(second!, secret)) === 401, 1_000, 20)
    expect(await walletsStatus(first!, secret)).toBe(401)
  })

  it("appears in no log line and no database dump; the dump holds its prefix and hash", async () => {
    expect(secret).not.toBe("")
    await Promise.all([first!.stop(10_000), second!.stop(10_000)])
    const secretPart = secret.slice(`agck_${id}_`.length)
    for (const output of [first!.output(), second!.output()]) {
      expect(output).toContain("agent-custody gateway listening")
      expect(output).not.toContain(secretPart)
      // Each answered its first request with its key listener live (not on the fallback reloads).
      expect(output).not.toContain("NOTIFY not heard")
      // Its LISTENs went one at a time (node-postgres warns of a query sent while another runs; pg 9 refuses it).
      expect(output).not.toContain("already executing a query")
    }
    const dump = execFileSync("pg_dump", ["--data-only", "--table=api_keys", "--table=audit_events", database!.url], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    expect(dump).not.toContain(secretPart)
    expect(dump).toContain(id)
    expect(dump).toContain(createHash("sha256").update(secret).digest("hex"))
    const whole = execFileSync("pg_dump", [database!.url], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
    expect(whole).not.toContain(secretPart)
  })
})
