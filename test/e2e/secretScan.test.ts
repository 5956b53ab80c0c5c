/**
 * The secret scan (issue 11): the real entry point runs the common flows (funded wallets, transfers,
 * a policy, an evaluation, an agent, a manifest issued and used, audit events, the stage stream); then
 * its log output, a dump of every database table, every response body and every stream message are
 * searched for the wallet keys (seed and 64-byte secret key, in base58, hex, base64, base64url and as a
 * JSON byte array), WALLET_KEY_ENCRYPTION_SECRET, the API key and AGENT_MANIFEST_SIGNING_SECRET. None
 * may appear anywhere. Needs PostgreSQL, as the other process tests (test/support/processes.ts).
 */
import { Keypair } from "@solana/web3.js"
import bs58 from "bs58"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import type { SealedSeedRecord } from "../../src/wallet/encryptedFileBackend.js"
import { deriveKeyEncryptionKey, openSeed } from "../../src/wallet/keyCipher.js"
import { sealedRows } from "../support/sealedKeys.js"
import { killAllChildren, type ServiceProcess, type SharedDeployment, startSharedDeployment } from "../support/processes.js"

const API_KEY = `scan-${randomBytes(16).toString("hex")}`
const KEY_SECRET = `kek-${randomBytes(16).toString("hex")}`
const MANIFEST_SECRET = `manifest-${randomBytes(16).toString("hex")}`
const DESTINATION = Keypair.generate().publicKey.toBase58()

let deployment: SharedDeployment | undefined
let service: ServiceProcess | undefined
const responses: Array<string> = []
const streamMessages: Array<string> = []

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-secret-scan-")
  try {
    service = await deployment.startService({
      API_GATEWAY_API_KEYS: `${API_KEY}:*:all`,
      WALLET_KEY_ENCRYPTION_SECRET: KEY_SECRET,
      AGENT_MANIFEST_SIGNING_SECRET: MANIFEST_SECRET
    })
  } catch (error) {
    killAllChildren()
    throw error
  }
}, 240_000)

afterAll(async () => {
  await deployment?.close()
}, 60_000)

/** A request whose whole answer (headers and body) is kept for the scan. */
const call = async (method: string, urlPath: string, body?: unknown) => {
  if (service === undefined) throw new Error("no service")
  const response = await fetch(service.baseUrl + urlPath, {
    method,
    headers: { "x-api-key": API_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  responses.push(`${method} ${urlPath} ${response.status} ${JSON.stringify([...response.headers])}\n${text}`)
  return { status: response.status, body: JSON.parse(text) as { status: string; data: any; error?: string } }
}

const settle = async (txId: string) => {
  for (let i = 0; i < 300; i++) {
    const { body } = await call("GET", `/api/v1/transactions/${txId}`)
    if (["confirmed", "failed", "approval_gate"].includes(body.data?.status)) return body.data
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`transaction ${txId} did not settle`)
}

/** Every form a leaked key could take in text. */
const encodings = (bytes: Uint8Array) => {
  const buffer = Buffer.from(bytes)
  return [bs58.encode(buffer), buffer.toString("hex"), buffer.toString("base64"), buffer.toString("base64url"), JSON.stringify([...buffer])]
}

describe("no secret leaves the service", () => {
  it("runs the common flows, then finds no key, key secret, API key or manifest secret anywhere", async () => {
    if (service === undefined || deployment === undefined) throw new Error("set-up failed")
    const url = new URL(service.baseUrl)
    const stream = new WebSocket(`ws://${url.host}/api/v1/stream`, { headers: { "x-api-key": API_KEY } })
    stream.on("message", (data) => streamMessages.push(data.toString()))
    await new Promise<void>((resolve, reject) => {
      stream.once("open", () => resolve())
      stream.once("error", reject)
    })

    const source = (await call("POST", "/api/v1/wallets", { label: "scan source", autoFund: true, fundLamports: 2_000_000_000 })).body.data
    const other = (await call("POST", "/api/v1/wallets", { label: "scan other" })).body.data
    expect(source.funding.ok).toBe(true)
    const policy = await call("POST", "/api/v1/policies", { walletId: source.id, name: "scan", rules: [{ type: "spending_limit", maxLamportsPerTx: 500_000_000 }] })
    expect(policy.status).toBe(201)
    expect((await call("POST", "/api/v1/evaluate", { walletId: source.id, type: "transfer_sol", protocol: "system-program", amountLamports: 1_000 })).status).toBe(200)

    for (const destination of [DESTINATION, other.publicKey]) {
      const created = await call("POST", "/api/v1/transactions", { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 } })
      expect(created.status).toBe(201)
      expect((await settle(created.body.data.id)).status).toBe("confirmed")
    }
    const denied = await call("POST", "/api/v1/transactions", { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 900_000_000 } })
    expect((await settle(denied.body.data.id)).status).toBe("failed")

    const agent = (await call("POST", "/api/v1/agents", { name: "scan agent", walletId: source.id, budgetLamports: 10_000_000 })).body.data
    const manifest = await call("POST", `/api/v1/agents/${agent.id}/manifest/issue`, { allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"], ttlSeconds: 600 })
    expect(manifest.status).toBe(201)
    const executed = await call("POST", `/api/v1/agents/${agent.id}/execute`, {
      type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 1_000 }, manifest: manifest.body.data
    })
    expect(executed.status).toBeLessThan(300)
    if (executed.body.data?.id !== undefined) await settle(executed.body.data.id)
    await call("POST", "/api/v1/audit/events", { eventType: "custom.scan", message: "scan", metadata: { walletId: source.id } })
    // Read back what a client would: audit events, replays, proofs, metrics.
    await call("GET", "/api/v1/audit/events?limit=1000")
    await call("GET", `/api/v1/wallets/${source.id}/transactions`)
    const listed = (await call("GET", `/api/v1/wallets/${source.id}/transactions`)).body.data.transactions as Array<{ id: string }>
    for (const tx of listed) {
      await call("GET", `/api/v1/transactions/${tx.id}/replay`)
      await call("GET", `/api/v1/transactions/${tx.id}/proof`)
    }
    await call("GET", "/api/v1/metrics")
    await call("GET", `/api/v1/wallets/${source.id}`)
    stream.close()
    // A graceful stop flushes the queued audit events and counters, and prints what it prints on the way.
    await service.stop(10_000)

    // The keys, from the sealed rows the service wrote (the test knows the key secret).
    const sealed = (await sealedRows<SealedSeedRecord>(deployment.database.url, "encrypted-file")).filter((row) => row.keyName !== "kdf-salt")
    expect(sealed.length).toBeGreaterThanOrEqual(2)
    const needles: Array<[string, string]> = [
      ["WALLET_KEY_ENCRYPTION_SECRET", KEY_SECRET],
      ["API key", API_KEY],
      ["AGENT_MANIFEST_SIGNING_SECRET", MANIFEST_SECRET]
    ]
    for (const { keyName: walletId, sealed: record } of sealed) {
      const seed = openSeed(deriveKeyEncryptionKey(KEY_SECRET, Buffer.from(record.salt, "base64")), walletId, record)
      const secretKey = Keypair.fromSeed(seed).secretKey
      for (const text of [...encodings(seed), ...encodings(secretKey)]) needles.push([`key of wallet ${walletId}`, text])
    }

    const tables = await deployment.database.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
    )
    const dump: Array<string> = []
    for (const { table_name } of tables) {
      const rows = await deployment.database.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`)
      dump.push(`== ${table_name}\n${rows.map((r) => r.row).join("\n")}`)
    }
    const haystacks: Array<[string, string]> = [
      ["the service's log output", service.output()],
      ["the database dump", dump.join("\n")],
      ["the response bodies", responses.join("\n")],
      ["the stream messages", streamMessages.join("\n")]
    ]
    // The scan sees real content: the flows above left rows, events, answers and stream messages.
    expect(dump.join("\n")).toContain(source.publicKey)
    expect(streamMessages.length).toBeGreaterThan(0)
    expect(responses.join("\n")).toContain("custom.scan")
    const found = haystacks.flatMap(([where, text]) => needles.filter(([, needle]) => text.includes(needle)).map(([what]) => `${what} in ${where}`))
    expect(found).toEqual([])
  })
})
