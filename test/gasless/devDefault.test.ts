/**
 * `npm start` (development mode) points GASLESS_RPC_URL at the relay it runs beside the local ledger;
 * an explicit GASLESS_RPC_URL or a remote ledger (CHAIN_RPC_URL: no local relay) leaves it alone.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { devEnvironment } from "../../src/devCredentials.js"
import { loadOrCreateRelayApiKey, relayApiKeyFile } from "../../src/gasless/relayApiKey.js"

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gasless-dev-"))

describe("GASLESS_RPC_URL in development", () => {
  it("defaults to the local relay, two ports above LEDGER_PORT or on GASLESS_RELAY_PORT", () => {
    expect(devEnvironment({ DATA_DIR: dataDir }).overrides.GASLESS_RPC_URL).toBe("http://127.0.0.1:8901")
    expect(devEnvironment({ DATA_DIR: dataDir, LEDGER_PORT: "9100" }).overrides.GASLESS_RPC_URL).toBe("http://127.0.0.1:9102")
    expect(devEnvironment({ DATA_DIR: dataDir, GASLESS_RELAY_PORT: "9400" }).overrides.GASLESS_RPC_URL).toBe("http://127.0.0.1:9400")
  })

  it("is left alone when set, or when the ledger is remote", () => {
    expect(devEnvironment({ DATA_DIR: dataDir, GASLESS_RPC_URL: "https://kora.example" }).overrides.GASLESS_RPC_URL).toBeUndefined()
    expect(devEnvironment({ DATA_DIR: dataDir, CHAIN_RPC_URL: "https://api.devnet.solana.com" }).overrides.GASLESS_RPC_URL).toBeUndefined()
  })
})

describe("the local relay's key in development (issue 31)", () => {
  it("is generated once under DATA_DIR (mode 0600) and given to the service as GASLESS_RPC_API_KEY; GASLESS_RELAY_API_KEY wins", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gasless-key-"))
    const first = devEnvironment({ DATA_DIR: dir }).overrides.GASLESS_RPC_API_KEY
    expect(first).toMatch(/^relay_[A-Za-z0-9_-]{32}$/)
    expect(fs.statSync(relayApiKeyFile(dir)).mode & 0o777).toBe(0o600)
    expect(devEnvironment({ DATA_DIR: dir }).overrides.GASLESS_RPC_API_KEY).toBe(first)
    expect(loadOrCreateRelayApiKey(undefined, dir)).toBe(first)
    expect(devEnvironment({ DATA_DIR: dir, GASLESS_RELAY_API_KEY: "chosen" }).overrides.GASLESS_RPC_API_KEY).toBe("chosen")
    expect(devEnvironment({ DATA_DIR: dir, GASLESS_RPC_API_KEY: "own" }).overrides.GASLESS_RPC_API_KEY).toBeUndefined()
  })
})
