// The local ledger in-process: Solana JSON-RPC over HTTP on 127.0.0.1:<port>, PubSub on <port>+1,
// slots advancing with wall-clock time, state saved under <dataDir>/ledger/ at most once a second.
import type { AmmProtocol } from "../protocols/amm/ammIds.js"
import { seedPools } from "./seedPools.js"
import { seedStakePool } from "./seedStakePool.js"
import { seedLendingMarket } from "./seedLendingMarket.js"
import { refreshPriceFeeds } from "./oracleMethods.js"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { address } from "@solana/kit"
import { handleRpcBody, type RpcMethodTable } from "./jsonRpc.js"
import { Ledger } from "./ledger.js"
import { foreignRequestReason, refusalBody } from "./localRequest.js"
import { LedgerStore } from "./persistence.js"
import { PubSub } from "./pubsub.js"
import type { WebSocketServer } from "ws"
import { createRpcMethods } from "./rpcMethods.js"
import { formatStartupLines, logFormatOf } from "../observability/startupLines.js"

export interface LedgerServerOptions {
  readonly port: number
  readonly dataDir: string
  readonly programs?: Array<{ programId: string; path: string }>
  /** Seed the test mints and pools on these AMM deployments (programs loaded above) when missing. */
  readonly seedPools?: Readonly<Partial<Record<AmmProtocol, string>>>
  readonly slotMs?: number
  /** Seed the liquid-staking pool on this deployment (loaded above) when missing. */
  readonly seedStakePool?: string
  /** Seed the lending market's reserves on this deployment (loaded above) when missing; needs seedPools' mints and feeds. */
  readonly seedLendingMarket?: string
  /** How often the seeded oracle feeds are posted again at the chain's clock (oracleMethods.ts); 0: never. */
  readonly priceRefreshMs?: number
}

export interface LedgerServer {
  readonly rpcUrl: string
  readonly wsUrl: string
  close(): Promise<void>
}

const DEFAULT_SLOT_MS = 400
/** well inside the service's default 60 s price-age bound (ORACLE_MAX_PRICE_AGE_SECONDS), even with a slow request in between */
const DEFAULT_PRICE_REFRESH_MS = 10_000
const SAVE_INTERVAL_MS = 1000
const MAX_BODY_BYTES = 16 * 1024 * 1024
const HOST = "127.0.0.1"

function serveRpc(methods: RpcMethodTable) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const refused = foreignRequestReason(req.headers)
    if (refused !== undefined) {
      res.writeHead(403, { "content-type": "application/json", connection: "close" }).end(refusalBody(refused))
      req.resume()
      return
    }
    if (req.method === "GET" && req.url === "/health") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok")
      return
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end()
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end()
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("error", () => req.destroy())
    req.on("end", () => {
      if (res.writableEnded) return
      const text = handleRpcBody(methods, Buffer.concat(chunks).toString("utf8"))
      res.writeHead(200, { "content-type": "application/json" }).end(text ?? "")
    })
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, HOST, () => {
      server.off("error", reject)
      resolve()
    })
  })
}

// Lets requests in flight finish (a reset would surface as an error in the client), then forces.
/** Resolves once every WebSocket client has finished its close handshake, or after `ms`. */
function waitForClients(wss: WebSocketServer, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const started = Date.now()
    const check = (): void => {
      if (wss.clients.size === 0 || Date.now() - started >= ms) resolve()
      else setTimeout(check, 10)
    }
    check()
  })
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), 2000)
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })
}

export async function startLedgerServer(opts: LedgerServerOptions): Promise<LedgerServer> {
  const slotMs = opts.slotMs ?? DEFAULT_SLOT_MS
  const store = new LedgerStore(opts.dataDir)
  const loaded = store.load()
  for (const program of opts.programs ?? []) loaded.svm.addProgramFromFile(address(program.programId), program.path)
  // Before the Ledger wraps the svm: its token-owner index is built from the accounts present.
  if (opts.seedPools !== undefined) seedPools(loaded.svm, opts.seedPools)
  if (opts.seedStakePool !== undefined) seedStakePool(loaded.svm, opts.seedStakePool)
  if (opts.seedLendingMarket !== undefined) seedLendingMarket(loaded.svm, opts.seedLendingMarket)
  const ledger = new Ledger(loaded.svm, loaded.side, loaded.history)

  // Slots keep running while the ledger is down, so old blockhashes are expired after a long stop.
  const downtimeSlots = loaded.savedAtMs === null ? 0 : Math.max(0, Math.floor((Date.now() - loaded.savedAtMs) / slotMs))
  const anchorSlot = loaded.side.slot + downtimeSlots + (loaded.savedAtMs === null ? 0 : 1)
  const anchorTime = Date.now()
  ledger.advanceTo(anchorSlot)
  const slotTimer = setInterval(() => {
    ledger.advanceTo(anchorSlot + Math.floor((Date.now() - anchorTime) / slotMs))
  }, Math.max(10, Math.floor(slotMs / 4)))
  // Prices persisted by an earlier run are as old as the downtime: posted again at start, then kept live.
  const priceRefreshMs = opts.priceRefreshMs ?? DEFAULT_PRICE_REFRESH_MS
  if (priceRefreshMs > 0) refreshPriceFeeds(ledger)
  const priceTimer = priceRefreshMs > 0 ? setInterval(() => refreshPriceFeeds(ledger), priceRefreshMs) : undefined

  const save = (): void => {
    try {
      store.save(ledger.svm, ledger.sideState(), ledger.history)
      ledger.dirty = false
    } catch (error) {
      const reason = `save failed: ${error instanceof Error ? error.message : String(error)}`
      console.error(formatStartupLines(logFormatOf(process.env.LOG_FORMAT), [{ level: "ERROR", text: `[ledger] ${reason}`, message: reason, annotations: { component: "ledger" } }]))
    }
  }
  if (loaded.savedAtMs === null) save()
  const saveTimer = setInterval(() => {
    if (ledger.dirty) save()
  }, SAVE_INTERVAL_MS)

  const rpcServer = createServer(serveRpc(createRpcMethods(ledger)))
  rpcServer.keepAliveTimeout = 60_000
  const wsServer = createServer((_, res) => res.writeHead(426).end())
  const wss = new PubSub(ledger).attach(wsServer)
  // ws re-emits its HTTP server's errors: a port in use would be an uncaught exception beside listen()'s rejection.
  wss.on("error", () => {})
  try {
    await listen(rpcServer, opts.port)
    await listen(wsServer, opts.port + 1)
  } catch (error) {
    clearInterval(slotTimer)
    clearInterval(saveTimer)
    clearInterval(priceTimer)
    wss.close()
    await Promise.all([closeServer(rpcServer), closeServer(wsServer)])
    throw error
  }

  let closed: Promise<void> | null = null
  return {
    rpcUrl: `http://${HOST}:${opts.port}`,
    wsUrl: `ws://${HOST}:${opts.port + 1}`,
    close: () => {
      closed ??= (async () => {
        clearInterval(slotTimer)
        clearInterval(saveTimer)
        clearInterval(priceTimer)
        // A normal closure (1000): web3.js clients then stop reconnecting to a ledger that is gone (after
        // an abnormal one they retry every second for as long as their process lives).
        for (const client of wss.clients) client.close(1000, "the ledger stopped")
        await waitForClients(wss, 500)
        for (const client of wss.clients) client.terminate()
        wss.close()
        await Promise.all([closeServer(rpcServer), closeServer(wsServer)])
        save()
      })()
      return closed
    }
  }
}
