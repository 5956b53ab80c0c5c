/**
 * Development safety and logs (issue 32), on the real entry point as `npm start` runs it (`--dev`): it listens
 * on loopback only unless API_GATEWAY_HOST says otherwise (and then warns, since it prints a key of tenant *
 * and scope all); with LOG_FORMAT=json every line the process tree prints is one JSON object, the start-up
 * and the local ledger's included, the development key never among them; each transaction outcome is one
 * line naming its ids.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { stopEmbeddedServer } from "../../src/db/embeddedServer.js"
import { freePortPair } from "../support/freePort.js"
import { createPostgresDatabase, type FreshDatabase, PROJECT_ROOT, type ServiceProcess, startServiceProcess, tempDir } from "../support/processes.js"

const running: Array<{ service: ServiceProcess; dataDir: string; database: FreshDatabase }> = []
afterAll(async () => {
  for (const { service, dataDir, database } of running) {
    await service.stop()
    await stopEmbeddedServer(dataDir)
    await database.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

/** The addresses listening on `port`, from the kernel's table (IPv4: `0100007F` is 127.0.0.1, `00000000` every interface). */
const listeningAddresses = (port: number): Array<string> =>
  fs
    .readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === "0A" && Number.parseInt(fields[1]?.split(":")[1] ?? "", 16) === port)
    .map((fields) => {
      const hex = fields[1]!.split(":")[0]!
      return [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join(".")
    })

/** `npm start` as a user runs it: development mode, no keys configured (the ones the harness sets are cleared). */
const startDev = async (env: Record<string, string>) => {
  const dataDir = tempDir("custody-dev-")
  const database = await createPostgresDatabase()
  const service = await startServiceProcess({ dev: true, dataDir, databaseUrl: database.url, env: { API_GATEWAY_API_KEYS: "", ...env } })
  running.push({ service, dataDir, database })
  const apiKey = (JSON.parse(fs.readFileSync(path.join(dataDir, "dev-credentials.json"), "utf8")) as { apiKey: string }).apiKey
  return { service, apiKey }
}

const post = (service: ServiceProcess, apiKey: string, route: string, body: unknown) =>
  fetch(`http://127.0.0.1:${service.port}${route}`, { method: "POST", headers: { "x-api-key": apiKey, "content-type": "application/json" }, body: JSON.stringify(body) })

describe("npm start", () => {
  it("with LOG_FORMAT=json: loopback only, every line JSON (start-up and the ledger's too), no key in any, one line per outcome with its ids", async () => {
    const [ledgerPort] = [await freePortPair()]
    const { service, apiKey } = await startDev({ LOG_FORMAT: "json", LEDGER_PORT: String(ledgerPort) })
    expect(listeningAddresses(service.port)).toEqual(["127.0.0.1"])

    const funded = (await (await post(service, apiKey, "/api/v1/wallets", { label: "logs", autoFund: true, fundLamports: 1_000_000_000 })).json()) as { data: { id: string } }
    const empty = (await (await post(service, apiKey, "/api/v1/wallets", { label: "empty" })).json()) as { data: { id: string } }
    const transfer = (walletId: string) => ({ walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", lamports: 2_000_000 } })
    const confirmed = (await (await post(service, apiKey, "/api/v1/transactions", transfer(funded.data.id))).json()) as { data: { id: string; status: string; signature: string } }
    const failed = (await (await post(service, apiKey, "/api/v1/transactions", transfer(empty.data.id))).json()) as { data: { id: string; status: string } }
    expect([confirmed.data.status, failed.data.status]).toEqual(["confirmed", "failed"])
    await new Promise((resolve) => setTimeout(resolve, 500))

    const lines = service.output().split("\n").filter((line) => line.trim() !== "")
    const parsed = lines.map((line) => {
      try {
        return JSON.parse(line) as { message: unknown; logLevel: string; timestamp: string; annotations: Record<string, unknown> }
      } catch {
        throw new Error(`not a JSON line: ${line}`)
      }
    })
    for (const entry of parsed) expect(entry).toMatchObject({ logLevel: expect.any(String), timestamp: expect.any(String), annotations: expect.any(Object) })
    expect(service.output()).not.toContain(apiKey)
    const byMessage = (message: string) => parsed.filter((entry) => entry.message === message)
    expect(byMessage("agent-custody gateway listening")[0]?.annotations).toMatchObject({ url: `http://127.0.0.1:${service.port}`, host: "127.0.0.1" })
    expect(byMessage("development API key (tenant *, scope all) created")[0]?.annotations.credentialsFile).toMatch(/dev-credentials\.json$/)
    expect(parsed.some((entry) => entry.annotations.component === "ledger" && String(entry.message).startsWith("ready rpc="))).toBe(true)

    const outcome = (txId: string) => parsed.filter((entry) => ["transaction confirmed", "transaction failed"].includes(String(entry.message)) && entry.annotations.txId === txId)
    expect(outcome(confirmed.data.id)).toHaveLength(1)
    expect(outcome(confirmed.data.id)[0]).toMatchObject({
      message: "transaction confirmed", logLevel: "INFO",
      annotations: { txId: confirmed.data.id, walletId: funded.data.id, tenantId: "default", signature: confirmed.data.signature, traceId: expect.any(String) }
    })
    expect(outcome(failed.data.id)).toHaveLength(1)
    expect(outcome(failed.data.id)[0]).toMatchObject({
      message: "transaction failed", logLevel: "WARN",
      annotations: { txId: failed.data.id, walletId: empty.data.id, tenantId: "default", errorCode: "PIPELINE_ERROR", failedAt: "build" }
    })
  }, 150_000)

  it("with LOG_FORMAT=json, a start that fails says why in one JSON line naming the variable", () => {
    const dataDir = tempDir("custody-badstart-")
    try {
      // The production start, without the keys it needs.
      const run = spawnSync(path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), ["src/main.ts"], {
        cwd: PROJECT_ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir(), DATA_DIR: dataDir, LOG_FORMAT: "json" },
        encoding: "utf8",
        timeout: 60_000
      })
      expect(run.status).not.toBe(0)
      const lines = `${run.stdout}${run.stderr}`.split("\n").filter((line) => line.trim() !== "")
      expect(lines).toHaveLength(1)
      const entry = JSON.parse(lines[0]!) as { message: string; logLevel: string; annotations: { cause: string } }
      expect(entry).toMatchObject({ message: "agent-custody could not start", logLevel: "ERROR" })
      expect(entry.annotations.cause).toContain("WALLET_KEY_ENCRYPTION_SECRET is required")
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  it("with API_GATEWAY_HOST=0.0.0.0: every interface, and a warning that the printed key is reachable", async () => {
    const { service } = await startDev({ API_GATEWAY_HOST: "0.0.0.0", CHAIN_RPC_URL: "http://127.0.0.1:9" })
    expect(listeningAddresses(service.port)).toEqual(["0.0.0.0"])
    expect(service.output()).toContain(`agent-custody gateway listening on http://localhost:${service.port}`)
    expect(service.output()).toMatch(/warning: listening on 0\.0\.0\.0 with a development key of tenant \* and scope all: anyone who can reach this port can use it/)
  }, 120_000)
})
