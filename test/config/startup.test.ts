/**
 * Bad configuration stops start-up (issue #2): the production entry point (`src/main.ts` without
 * --dev, as `npm run start:prod` runs it, through node with the tsx loader: the tsx CLI may SIGKILL a
 * process that does not acknowledge a relayed SIGTERM within 30 ms) exits non-zero with a message naming the variable, and never
 * echoes a secret it was given. Effect's default logger writes the error to stdout when it is not a
 * terminal, so the message is looked for in both streams.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, it } from "vitest"
import { stopEmbeddedServer } from "../../src/db/embeddedServer.js"
import { nodeArgumentsFor } from "../../src/entryPoints.js"

const projectRoot = path.resolve(import.meta.dirname, "../..")
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-config-"))

afterAll(async () => {
  // A start that got as far as the embedded PostgreSQL leaves nothing running with its data gone.
  await stopEmbeddedServer(dataDir)
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** A valid production configuration; each case spoils one variable. CHAIN_RPC_URL avoids starting a ledger. */
const VALID: Record<string, string> = {
  DATA_DIR: dataDir,
  API_GATEWAY_PORT: "0",
  API_GATEWAY_API_KEYS: "config-test-key:*:all",
  WALLET_KEY_ENCRYPTION_SECRET: "config-test-secret",
  CHAIN_RPC_URL: "http://127.0.0.1:1"
}

const START_LIMIT_MS = 120_000

/** The started process, and its exit code with everything it printed. */
const spawnProd = (env: Record<string, string | undefined>) => {
  const merged: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir() }
  for (const [name, value] of Object.entries({ ...VALID, ...env })) if (value !== undefined) merged[name] = value
  const child = spawn(process.execPath, nodeArgumentsFor("main"), { cwd: projectRoot, env: merged, stdio: ["ignore", "pipe", "pipe"] })
  const done = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    // A start-up that does not fail within the limit is a failure of this test, not a hang. Generous:
    // the starts run side by side (each mostly loads modules, CPU-bound on a shared machine).
    const timer = setTimeout(() => child.kill("SIGKILL"), START_LIMIT_MS)
    child.once("error", reject)
    // "close", not "exit": exit can come before the pipes are read to their end (an empty output under load).
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, output: stdout + stderr })
    })
  })
  return { child, done }
}

const startProd = (env: Record<string, string | undefined>) => spawnProd(env).done

// Each case is its own process start; they are independent, so they run concurrently (up to vitest's
// maxConcurrency at once) instead of one after the other; `it.for` hands each case the test's own
// `expect`, as concurrent tests need.
describe.concurrent("start-up with bad configuration", () => {
  it.for<[string, Record<string, string | undefined>, RegExp]>([
    ["a port that is not a number", { API_GATEWAY_PORT: "abc" }, /API_GATEWAY_PORT/],
    ["a port out of range", { API_GATEWAY_PORT: "70000" }, /API_GATEWAY_PORT must be a port number/],
    ["no key-encryption secret with the encrypted-file backend", { WALLET_KEY_ENCRYPTION_SECRET: undefined }, /WALLET_KEY_ENCRYPTION_SECRET is required/],
    ["no API keys while auth is enforced", { API_GATEWAY_API_KEYS: undefined }, /API_GATEWAY_API_KEYS is required/],
    ["an unknown signer backend", { WALLET_SIGNER_BACKEND: "vault" }, /WALLET_SIGNER_BACKEND/],
    ["an RPC URL that is not http(s)", { CHAIN_RPC_URL: "ftp://ledger" }, /CHAIN_RPC_URL must be an http\(s\) URL/],
    ["a rate limit of zero", { API_GATEWAY_RATE_LIMIT_PER_MINUTE: "0" }, /API_GATEWAY_RATE_LIMIT_PER_MINUTE must be a positive integer/],
    ["a priority fee minimum above the maximum", { CHAIN_PRIORITY_FEE_MIN_MICROLAMPORTS: "300000" }, /CHAIN_PRIORITY_FEE_MIN_MICROLAMPORTS/],
    ["a negative number of pipeline workers", { TX_PIPELINE_WORKERS: "-1" }, /TX_PIPELINE_WORKERS must be a non-negative integer/]
  ])("refuses %s", { timeout: START_LIMIT_MS + 30_000 }, async ([_why, env, message], { expect }) => {
    const result = await startProd(env)
    expect(result.code).not.toBe(0)
    expect(result.code).not.toBeNull()
    expect(result.output).toMatch(message)
    expect(result.output).not.toContain("listening")
  })

  it("names a malformed API key entry by position and never prints the key", { timeout: START_LIMIT_MS + 30_000 }, async ({ expect }) => {
    const result = await startProd({ API_GATEWAY_API_KEYS: "super-secret-key-value:all" })
    expect(result.code).not.toBe(0)
    expect(result.output).toMatch(/API_GATEWAY_API_KEYS entry 1/)
    expect(result.output).not.toContain("super-secret-key-value")
    // Refused before the service loads: nothing was started, no database made under DATA_DIR.
    expect(fs.readdirSync(dataDir)).toEqual([])
  })
})

/**
 * The local ledger and the embedded PostgreSQL start while the modules load (src/headStarts.ts), before the
 * layers that use them: a start that fails first must not leave them running. Here the ledger's port is
 * taken, so the ledger child fails and the start with it, after the embedded server began to start.
 */
describe("a start that fails or is stopped after its child servers began", () => {
  it("stops the embedded PostgreSQL it started early", { timeout: START_LIMIT_MS + 30_000 }, async ({ expect }) => {
    const ownDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-config-early-"))
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    try {
      const port = (taken.address() as net.AddressInfo).port
      const result = await startProd({ DATA_DIR: ownDataDir, CHAIN_RPC_URL: undefined, LEDGER_PORT: String(port) })
      expect(result.code).not.toBe(0)
      expect(result.output).toMatch(/ledger/)
      expect(result.output).not.toContain("listening")
      // The embedded server had started (its cluster is there) and was stopped with the failed start.
      expect(fs.existsSync(path.join(ownDataDir, "postgres", "PG_VERSION"))).toBe(true)
      expect(fs.existsSync(path.join(ownDataDir, "postgres", "postmaster.pid"))).toBe(false)
    } finally {
      taken.close()
      await stopEmbeddedServer(ownDataDir)
      fs.rmSync(ownDataDir, { recursive: true, force: true })
    }
  })

  it("stopped while its modules load, it launches nothing and stops the embedded PostgreSQL", { timeout: START_LIMIT_MS + 30_000 }, async ({ expect }) => {
    const ownDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-config-stop-"))
    try {
      const { child, done } = spawnProd({ DATA_DIR: ownDataDir })
      // The embedded server's password file is its first step: the child servers have begun, the modules
      // (seconds under tsx) have not loaded yet.
      const credentials = path.join(ownDataDir, "embedded-postgres.json")
      const deadline = Date.now() + START_LIMIT_MS
      while (!fs.existsSync(credentials) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(fs.existsSync(credentials)).toBe(true)
      child.kill("SIGTERM")
      const result = await done
      expect(result.output).not.toContain("listening")
      expect(result.output).not.toContain("could not start")
      // The server it began was started (its cluster is there), then stopped with the process.
      expect(fs.existsSync(path.join(ownDataDir, "postgres", "PG_VERSION"))).toBe(true)
      expect(fs.existsSync(path.join(ownDataDir, "postgres", "postmaster.pid"))).toBe(false)
    } finally {
      await stopEmbeddedServer(ownDataDir)
      fs.rmSync(ownDataDir, { recursive: true, force: true })
    }
  })
})
