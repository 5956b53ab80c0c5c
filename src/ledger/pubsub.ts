// The validator's WebSocket PubSub API (on RPC port + 1): signature, account, program, logs, slot and
// root subscriptions. web3.js's confirmTransaction waits on signatureSubscribe, so this is required.
import type { Server as HttpServer } from "node:http"
import { WebSocketServer, type WebSocket } from "ws"
import { foreignRequestReason } from "./localRequest.js"
import { encodeAccount, parseEncoding, type AccountEncoding } from "./accounts.js"
import { callMethod, InvalidParamsError, optionalConfig, serialize, type RpcHandler } from "./jsonRpc.js"
import type { Ledger, LedgerListener } from "./ledger.js"
import { requirePubkey, requireSignature } from "./rpcParams.js"
import type { TransactionRecord } from "./transactionHistory.js"

type Kind = "signature" | "account" | "program" | "logs" | "slot" | "root"

interface Subscription {
  readonly id: number
  readonly kind: Kind
  readonly socket: WebSocket
  /** Signature, account or program id the subscription is keyed by ("" for slot/root/logs). */
  readonly key: string
  readonly encoding: AccountEncoding
  /** logsSubscribe "mentions" filter; null means all transactions. */
  readonly mentions: string | null
}

export class PubSub implements LedgerListener {
  private nextId = 0
  private readonly byKind = new Map<Kind, Map<string, Map<number, Subscription>>>()
  private readonly byId = new Map<number, Subscription>()

  constructor(private readonly ledger: Ledger) {
    ledger.listeners.add(this)
  }

  attach(server: HttpServer): WebSocketServer {
    // The same Host/Origin rule as the RPC port (localRequest.ts): a browser page cannot subscribe.
    const wss = new WebSocketServer({
      server,
      verifyClient: (info, done) => {
        const refused = foreignRequestReason(info.req.headers)
        if (refused === undefined) done(true)
        else done(false, 403, `Forbidden: ${refused}`)
      }
    })
    wss.on("connection", (socket) => this.accept(socket))
    return wss
  }

  private bucket(kind: Kind, key: string): Map<number, Subscription> {
    let keys = this.byKind.get(kind)
    if (keys === undefined) this.byKind.set(kind, (keys = new Map()))
    let subs = keys.get(key)
    if (subs === undefined) keys.set(key, (subs = new Map()))
    return subs
  }

  private subscribers(kind: Kind, key: string): Map<number, Subscription> | undefined {
    return this.byKind.get(kind)?.get(key)
  }

  private add(socket: WebSocket, kind: Kind, key: string, encoding: AccountEncoding = "base64", mentions: string | null = null): number {
    const sub: Subscription = { id: this.nextId++, kind, socket, key, encoding, mentions }
    this.bucket(kind, key).set(sub.id, sub)
    this.byId.set(sub.id, sub)
    return sub.id
  }

  private remove(id: number, kind: Kind | null = null): boolean {
    const sub = this.byId.get(id)
    if (sub === undefined || (kind !== null && sub.kind !== kind)) return false
    this.byId.delete(id)
    const keys = this.byKind.get(sub.kind)
    const subs = keys?.get(sub.key)
    subs?.delete(id)
    if (subs !== undefined && subs.size === 0) keys?.delete(sub.key)
    return true
  }

  private notify(sub: Subscription, method: string, result: unknown): void {
    if (sub.socket.readyState !== sub.socket.OPEN) return
    sub.socket.send(serialize({ jsonrpc: "2.0", method, params: { result, subscription: sub.id } }))
  }

  private accept(socket: WebSocket): void {
    const owned = new Set<number>()
    socket.on("error", () => socket.terminate())
    socket.on("close", () => {
      for (const id of owned) this.remove(id)
    })
    const subscribe = (after?: (id: number) => void) => (id: number) => {
      owned.add(id)
      if (after !== undefined) setImmediate(() => after(id))
      return id
    }
    const unsubscribe = (kind: Kind): RpcHandler => (params) => {
      const id = params[0]
      if (typeof id !== "number" || !owned.has(id)) throw new InvalidParamsError("Invalid subscription id.")
      owned.delete(id)
      return this.remove(id, kind)
    }
    const methods = new Map<string, RpcHandler>([
      ["signatureSubscribe", (params) => {
        const signature = requireSignature(params[0])
        return subscribe((id) => this.notifyIfAlreadyProcessed(id, signature))(this.add(socket, "signature", signature))
      }],
      ["accountSubscribe", (params) => {
        const key = requirePubkey(params, 0)
        const encoding = parseEncoding(optionalConfig(params, 1).encoding, "base58")
        return subscribe()(this.add(socket, "account", key, encoding))
      }],
      ["programSubscribe", (params) => {
        const key = requirePubkey(params, 0)
        const encoding = parseEncoding(optionalConfig(params, 1).encoding, "base58")
        return subscribe()(this.add(socket, "program", key, encoding))
      }],
      ["logsSubscribe", (params) => {
        const filter = params[0]
        let mentions: string | null = null
        if (typeof filter === "object" && filter !== null && "mentions" in filter && Array.isArray(filter.mentions)) {
          mentions = requirePubkey(filter.mentions, 0)
        } else if (filter !== "all" && filter !== "allWithVotes") {
          throw new InvalidParamsError("Invalid params: logs filter must be \"all\", \"allWithVotes\" or { mentions: [pubkey] }")
        }
        return subscribe()(this.add(socket, "logs", "", "base64", mentions))
      }],
      ["slotSubscribe", () => subscribe()(this.add(socket, "slot", ""))],
      ["rootSubscribe", () => subscribe()(this.add(socket, "root", ""))],
      ["signatureUnsubscribe", unsubscribe("signature")],
      ["accountUnsubscribe", unsubscribe("account")],
      ["programUnsubscribe", unsubscribe("program")],
      ["logsUnsubscribe", unsubscribe("logs")],
      ["slotUnsubscribe", unsubscribe("slot")],
      ["rootUnsubscribe", unsubscribe("root")]
    ])
    socket.on("message", (data) => {
      let request: unknown
      try {
        request = JSON.parse(data.toString())
      } catch {
        socket.send(serialize({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }))
        return
      }
      socket.send(serialize(callMethod(methods, request)))
    })
  }

  // A signature that landed before the subscription still gets its notification, so no waiter hangs.
  private notifyIfAlreadyProcessed(id: number, signature: string): void {
    const record = this.ledger.history.get(signature)
    const sub = this.byId.get(id)
    if (record === undefined || sub === undefined) return
    this.notify(sub, "signatureNotification", { context: { slot: record.slot }, value: { err: record.err } })
    this.remove(id)
  }

  onTransaction(record: TransactionRecord, writableKeys: readonly string[]): void {
    const context = { slot: record.slot }
    const signatureSubs = this.subscribers("signature", record.signature)
    if (signatureSubs !== undefined) {
      // A validator removes a signature subscription once it has notified it.
      for (const sub of Array.from(signatureSubs.values())) {
        this.notify(sub, "signatureNotification", { context, value: { err: record.err } })
        this.remove(sub.id)
      }
    }
    const read = (key: string) => this.ledger.readAccount(key)
    const hasAccountSubs = (this.byKind.get("account")?.size ?? 0) > 0
    const hasProgramSubs = (this.byKind.get("program")?.size ?? 0) > 0
    if (hasAccountSubs || hasProgramSubs) {
      for (const key of writableKeys) {
        const accountSubs = this.subscribers("account", key)
        const account = read(key) ?? { lamports: 0n, owner: "11111111111111111111111111111111", executable: false, data: new Uint8Array() }
        const programSubs = this.subscribers("program", account.owner)
        for (const sub of accountSubs?.values() ?? []) {
          this.notify(sub, "accountNotification", { context, value: encodeAccount(account, sub.encoding, null, read) })
        }
        for (const sub of programSubs?.values() ?? []) {
          const value = { account: encodeAccount(account, sub.encoding, null, read), pubkey: key }
          this.notify(sub, "programNotification", { context, value })
        }
      }
    }
    const logSubs = this.subscribers("logs", "")
    if (logSubs !== undefined) {
      const value = { err: record.err, logs: record.logMessages, signature: record.signature }
      for (const sub of logSubs.values()) {
        if (sub.mentions === null || writableKeys.includes(sub.mentions) || record.logMessages.some((l) => l.includes(sub.mentions ?? ""))) {
          this.notify(sub, "logsNotification", { context, value })
        }
      }
    }
  }

  onSlot(slot: number): void {
    for (const sub of this.subscribers("slot", "")?.values() ?? []) {
      this.notify(sub, "slotNotification", { parent: slot - 1, root: slot, slot })
    }
    for (const sub of this.subscribers("root", "")?.values() ?? []) this.notify(sub, "rootNotification", slot)
  }
}
