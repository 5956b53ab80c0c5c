/**
 * The local ledger serves only this machine's programs (issue 11 item 7, the ledger's part): a foreign
 * Host (DNS rebinding) or a browser Origin of another site is refused on both the RPC and the PubSub
 * port, and changes nothing; web3.js, @solana/kit and loopback origins keep working. Its faucet is
 * bounded per call.
 */
import { createSolanaRpc, createSolanaRpcSubscriptions } from "@solana/kit"
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from "@solana/web3.js"
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { MAX_AIRDROP_LAMPORTS } from "../../src/ledger/airdropLimit.js"
import { startTestLedger } from "../support/ledger.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>

beforeAll(async () => {
  ledger = await startTestLedger()
})
afterAll(async () => {
  await ledger?.close()
})

/** A JSON-RPC POST with chosen Host/Origin headers (fetch may not set Host). */
const post = (body: unknown, headers: Record<string, string>) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const url = new URL(ledger.rpcUrl)
    const text = JSON.stringify(body)
    const req = request(
      { host: url.hostname, port: url.port, method: "POST", path: "/", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") }))
      }
    )
    req.on("error", reject)
    req.end(text)
  })

const airdrop = (recipient: string, lamports: number) => ({ jsonrpc: "2.0", id: 1, method: "requestAirdrop", params: [recipient, lamports] })

/** Opens the PubSub socket with the given headers: "open" or the HTTP status of the refusal. */
const openSocket = (headers: Record<string, string>) =>
  new Promise<number | "open">((resolve) => {
    const socket = new WebSocket(ledger.wsUrl, { headers })
    socket.on("open", () => {
      socket.close()
      resolve("open")
    })
    socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
    socket.on("error", () => undefined)
  })

describe("the local ledger refuses foreign hosts and origins", () => {
  it("refuses a non-loopback Host with 403 and performs nothing", async () => {
    const recipient = Keypair.generate().publicKey.toBase58()
    const port = new URL(ledger.rpcUrl).port
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.nip.io:${port}`, `localhost.evil.example:${port}`, `10.0.0.1:${port}`]) {
      const reply = await post(airdrop(recipient, LAMPORTS_PER_SOL), { host })
      expect(reply.status, host).toBe(403)
      expect(reply.body.error.message).toMatch(/Forbidden: Host/)
    }
    expect(await new Connection(ledger.rpcUrl).getBalance(new PublicKey(recipient))).toBe(0)
  })

  it("refuses a browser Origin of another site, accepts loopback origins and none", async () => {
    const recipient = Keypair.generate().publicKey.toBase58()
    for (const origin of ["http://evil.example", "https://evil.example:8899", "null", "http://127.0.0.1.evil.example"]) {
      const reply = await post(airdrop(recipient, LAMPORTS_PER_SOL), { origin })
      expect(reply.status, origin).toBe(403)
      expect(reply.body.error.message).toMatch(/cross-origin/)
    }
    const slot = { jsonrpc: "2.0", id: 1, method: "getSlot" }
    expect((await post(slot, { origin: "http://localhost:3000" })).status).toBe(200)
    expect((await post(slot, { origin: "http://127.0.0.1:5173" })).body.result).toBeTypeOf("number")
    expect((await post(slot, { host: `localhost:${new URL(ledger.rpcUrl).port}` })).status).toBe(200)
  })

  it("refuses the PubSub upgrade from a foreign Host or Origin; a plain client subscribes", async () => {
    expect(await openSocket({ origin: "http://evil.example" })).toBe(403)
    expect(await openSocket({ host: "evil.example" })).toBe(403)
    expect(await openSocket({})).toBe("open")
  })

  it("keeps real clients working: web3.js Connection and @solana/kit, RPC and subscriptions", async () => {
    const connection = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl })
    const payer = Keypair.generate()
    const signature = await connection.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL)
    await connection.confirmTransaction(signature, "confirmed")
    expect(await connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL)
    const slot = await new Promise<number>((resolve) => {
      const id = connection.onSlotChange((info) => {
        void connection.removeSlotChangeListener(id)
        resolve(info.slot)
      })
    })
    expect(slot).toBeGreaterThan(0)
    const rpc = createSolanaRpc(ledger.rpcUrl)
    expect(Number(await rpc.getSlot().send())).toBeGreaterThan(0)
    const abort = new AbortController()
    const slots = await createSolanaRpcSubscriptions(ledger.wsUrl).slotNotifications().subscribe({ abortSignal: abort.signal })
    for await (const notification of slots) {
      expect(Number(notification.slot)).toBeGreaterThan(0)
      break
    }
    abort.abort()
  })

  it("bounds requestAirdrop per call", async () => {
    const recipient = Keypair.generate().publicKey.toBase58()
    const tooMuch = await post(airdrop(recipient, Number(MAX_AIRDROP_LAMPORTS) + 1), {})
    expect(tooMuch.body.error.code).toBe(-32602)
    expect(tooMuch.body.error.message).toMatch(/at most 1000000000000 per airdrop/)
    const connection = new Connection(ledger.rpcUrl, "confirmed")
    expect(await connection.getBalance(new PublicKey(recipient))).toBe(0)
    expect((await post(airdrop(recipient, Number(MAX_AIRDROP_LAMPORTS)), {})).body.result).toBeTypeOf("string")
  })
})
