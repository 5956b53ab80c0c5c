/**
 * Swaps on `npm start` defaults (issue 14): the entry point as `npm start` runs it, with nothing configured,
 * serves the seeded pools of both AMMs; a quote, then the swap it previews executed through POST /transactions,
 * confirms with exactly the quoted output in the wallet.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { stopEmbeddedServer } from "../../src/db/embeddedServer.js"
import { freePort, freePortPair } from "../support/freePort.js"
import { sleep } from "../support/wait.js"

const projectRoot = path.resolve(import.meta.dirname, "../..")
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-e2e-swap-"))
let child: ChildProcess | undefined

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM")
    await new Promise((resolve) => child!.once("exit", resolve))
  }
  await stopEmbeddedServer(dataDir)
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const waitForKey = async (output: { text: string }, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const key = output.text.match(/development API key \(tenant \*, scope all\): (\S+)/)?.[1]
    if (key !== undefined && /^try: curl /m.test(output.text)) return key
    if (Date.now() > deadline || child?.exitCode !== null) throw new Error(`the service did not start:\n${output.text}`)
    await sleep(200)
  }
}

describe("swaps on npm start defaults", () => {
  it("lists the seeded pools, quotes, and executes the previewed swap through the pipeline", async () => {
    const gatewayPort = await freePort()
    const ledgerPort = await freePortPair()
    child = spawn(path.join(projectRoot, "node_modules/.bin/tsx"), ["src/main.ts", "--dev"], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir(), DATA_DIR: dataDir, API_GATEWAY_PORT: String(gatewayPort), LEDGER_PORT: String(ledgerPort) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const output = { text: "" }
    child.stdout?.on("data", (chunk: Buffer) => (output.text += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (output.text += chunk.toString()))
    const key = await waitForKey(output, 90_000)
    const base = `http://localhost:${gatewayPort}`
    const call = async (method: string, urlPath: string, body?: unknown) => {
      const response = await fetch(base + urlPath, {
        method,
        headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { status: response.status, body: (await response.json()) as any }
    }

    const pools = (await call("GET", "/api/v1/defi/pools")).body.data.pools as Array<any>
    expect(pools).toHaveLength(4)
    const sol = pools.flatMap((p) => [p.mintA, p.mintB]).find((m) => m.symbol === "SOL").address
    const usdc = pools.flatMap((p) => [p.mintA, p.mintB]).find((m) => m.symbol === "USDC").address
    expect((await call("GET", "/api/v1/protocols/health")).body.data.protocols.filter((p: any) => ["amm-one", "amm-two", "dex-aggregator"].includes(p.protocol)).every((p: any) => p.ok)).toBe(true)

    const wallet = (await call("POST", "/api/v1/wallets", { autoFund: true, fundLamports: 2_000_000_000 })).body.data
    const preview = await call("POST", "/api/v1/defi/swap", { protocol: "dex-aggregator", inputMint: sol, outputMint: usdc, amount: "500000000", wallet: wallet.publicKey, slippageBps: 100 })
    expect(preview.status).toBe(200)
    const executed = await call("POST", "/api/v1/transactions?waitMs=30000", preview.body.data.execute.body)
    expect(executed.body.data.status).toBe("confirmed")
    const tokens = (await call("GET", `/api/v1/wallets/${wallet.id}/tokens`)).body.data.tokens as Array<any>
    expect(tokens.find((t) => t.mint === usdc)?.amount).toBe(preview.body.data.quote.outAmount)
  }, 180_000)
})
