/**
 * A new user's first minutes (issue #2): start the real entry point as `npm start` does, with nothing
 * configured but a data dir and free ports; take the development API key and the curl line it prints;
 * make that request (a funded wallet) and read the balance; stop with SIGTERM and see the ledger child
 * go with it. The curl line is replayed with fetch (same URL, headers and body), so curl is not needed.
 */
import { KoraClient } from "@solana/kora/dist/src/client.js"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { stopEmbeddedServer } from "../../src/db/embeddedServer.js"
import { relayApiKeyFile } from "../../src/gasless/relayApiKey.js"
import { freePort, freePortPair } from "../support/freePort.js"

const projectRoot = path.resolve(import.meta.dirname, "../..")
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-e2e-"))
let child: ChildProcess | undefined

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  // The service's embedded PostgreSQL outlives a killed service: stop it before its data goes.
  await stopEmbeddedServer(dataDir)
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** Resolves with stdout so far once `pattern` matches it; rejects if the process exits first. */
const waitForOutput = (proc: ChildProcess, output: { text: string }, pattern: RegExp, timeoutMs: number) =>
  new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => {
      const match = output.text.match(pattern)
      if (match === null) return
      cleanup()
      resolve(match)
    }
    const onExit = (code: number | null) => {
      cleanup()
      reject(new Error(`the service exited (${String(code)}) before printing ${pattern}:\n${output.text}`))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output.text}`))
    }, timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      proc.stdout?.off("data", check)
      proc.off("exit", onExit)
    }
    proc.stdout?.on("data", check)
    proc.once("exit", onExit)
    check()
  })

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const exitOf = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve(proc.exitCode)
    else proc.once("exit", (code) => resolve(code))
  })

describe("first request, as the README tells it", () => {
  it("npm start prints a key and a curl line that creates a funded wallet; SIGTERM stops the ledger too", async () => {
    const gatewayPort = await freePort()
    const ledgerPort = await freePortPair()
    // Nothing but what a shell has, a data dir and two ports: no API keys, no secret, no RPC URL.
    child = spawn(path.join(projectRoot, "node_modules/.bin/tsx"), ["src/main.ts", "--dev"], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? os.tmpdir(),
        DATA_DIR: dataDir,
        API_GATEWAY_PORT: String(gatewayPort),
        LEDGER_PORT: String(ledgerPort)
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const output = { text: "" }
    child.stdout?.on("data", (chunk: Buffer) => (output.text += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (output.text += chunk.toString()))

    const [curlLine] = await waitForOutput(child, output, /^try: curl .*$/m, 90_000)
    const apiKey = output.text.match(/development API key \(tenant \*, scope all\): (\S+)/)?.[1]
    expect(apiKey).toBeDefined()
    // Development binds loopback only: it prints a deployment-wide key (issue 32).
    expect(output.text).toContain(`agent-custody gateway listening on http://127.0.0.1:${gatewayPort}`)

    // The printed line, taken apart: curl -s -X POST <url> -H '<header>' -H '<header>' -d '<body>'
    const url = curlLine.match(/-X POST (\S+)/)?.[1]
    const headers = Object.fromEntries([...curlLine.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!]))
    const body = curlLine.match(/-d '([^']*)'/)?.[1]
    expect(url).toBe(`http://127.0.0.1:${gatewayPort}/api/v1/wallets`)
    expect(headers["x-api-key"]).toBe(apiKey)
    const requested = JSON.parse(body ?? "null") as { autoFund: boolean; fundLamports: number }
    expect(requested.autoFund).toBe(true)

    const created = await fetch(url!, { method: "POST", headers, body })
    expect(created.status).toBe(201)
    const wallet = (await created.json()) as { status: string; data: { id: string; funding: { ok: boolean } } }
    expect(wallet.status).toBe("success")
    expect(wallet.data.funding.ok).toBe(true)

    const balance = await fetch(`http://127.0.0.1:${gatewayPort}/api/v1/wallets/${wallet.data.id}/balance`, {
      headers: { "x-api-key": apiKey! }
    })
    expect(balance.status).toBe(200)
    expect(((await balance.json()) as { data: { lamports: number } }).data.lamports).toBe(requested.fundLamports)

    // The development key is kept under DATA_DIR so the next `npm start` prints the same one.
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, "dev-credentials.json"), "utf8")) as { apiKey: string }
    expect(saved.apiKey).toBe(apiKey)

    // The fee-payer relay runs beside the local ledger (LEDGER_PORT + 2) and answers Kora's client, given the
    // relay key the service keeps under DATA_DIR (a stranger reaching the port is refused).
    const relayUrl = `http://127.0.0.1:${ledgerPort + 2}`
    await expect(new KoraClient({ rpcUrl: relayUrl }).getPayerSigner()).rejects.toThrow(/unauthorized/)
    const relay = new KoraClient({ rpcUrl: relayUrl, apiKey: fs.readFileSync(relayApiKeyFile(dataDir), "utf8").trim() })
    const payer = await relay.getPayerSigner()
    expect(payer.signer_address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    expect((await relay.getConfig()).fee_payers).toEqual([payer.signer_address])

    expect(await portAnswers(ledgerPort)).toBe(true)
    child.kill("SIGTERM")
    await exitOf(child)
    // The ledger child stops with its parent: its port is released within a few seconds.
    const deadline = Date.now() + 15_000
    while ((await portAnswers(ledgerPort)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    expect(await portAnswers(ledgerPort)).toBe(false)
    expect(await portAnswers(gatewayPort)).toBe(false)
    expect(await portAnswers(ledgerPort + 2)).toBe(false)
    // The first start creates the embedded PostgreSQL cluster (initdb): seconds on a busy machine.
  }, 150_000)
})
