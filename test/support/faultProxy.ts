/**
 * A fault-injecting JSON-RPC proxy for tests (issue 30), between the service and the local ledger, on
 * 127.0.0.1 at a free port. It forwards every request (single or batch) to the ledger unchanged unless a
 * rule says otherwise:
 * - `loseAnswer`: forwards the request (the ledger acts on it: a transaction lands) and then resets the
 *   connection instead of answering;
 * - `unavailable`: answers 503 without forwarding (a burst: a rule with a time limit);
 * - `delay`: forwards, then answers only after `ms` (past the client's timeout, the answer is lost too);
 * - `duplicate`: forwards the request twice (a retrying load balancer) and answers the first.
 * And it can lag: `lag(n)` makes it answer as an endpoint `n` slots behind the ledger: slots and block
 * heights n lower, and a transaction or signature status of the last n slots "not found".
 * A rule matches requests by method (any when none is named) and applies to the next `times` matches, or
 * to every match for `forMs`; `then` adds rules when it first acts. `seen` counts requests by method.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export type FaultAction =
  | { readonly kind: "loseAnswer" }
  | { readonly kind: "unavailable" }
  | { readonly kind: "delay"; readonly ms: number }
  | { readonly kind: "duplicate" }

export interface FaultRule {
  readonly action: FaultAction
  /** JSON-RPC methods it applies to (a batch matches when any of its calls does); all when absent. */
  readonly methods?: ReadonlyArray<string>
  /** Applies to this many matching requests, then is dropped. */
  readonly times?: number
  /** Applies to every matching request for this long from when it is added (ms), then is dropped. */
  readonly forMs?: number
  /** Rules added when this one first acts (e.g. a 503 burst right after a lost answer). */
  readonly then?: ReadonlyArray<FaultRule>
}

export interface FaultProxy {
  readonly url: string
  /** Adds a rule (rules apply in the order added; the first that matches a request decides). */
  readonly add: (rule: FaultRule) => void
  /** Drops every rule and the lag. */
  readonly clear: () => void
  /** Answers as an endpoint `slots` behind the ledger (0: not lagging). */
  readonly lag: (slots: number) => void
  /** Requests seen, by method (a batch counts each call). */
  readonly seen: Map<string, number>
  /** Requests a rule acted on, by action kind. */
  readonly faults: Map<string, number>
  readonly close: () => Promise<void>
}

interface Call {
  readonly jsonrpc?: string
  readonly id?: unknown
  readonly method?: string
  readonly params?: ReadonlyArray<unknown>
}

interface Answer {
  readonly jsonrpc: "2.0"
  readonly id: unknown
  readonly result?: unknown
  readonly error?: unknown
}

interface ActiveRule {
  readonly rule: FaultRule
  readonly untilMs: number
  remaining: number
  fired: boolean
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let raw = ""
    req.on("data", (chunk) => (raw += chunk))
    req.on("end", () => resolve(raw))
    req.on("error", reject)
  })

/** Starts a proxy in front of the JSON-RPC endpoint at `upstream`. */
export const startFaultProxy = async (upstream: string): Promise<FaultProxy> => {
  let rules: Array<ActiveRule> = []
  let lagSlots = 0
  const seen = new Map<string, number>()
  const faults = new Map<string, number>()
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

  /** Forwards a body with the caller's credentials (an x-api-key, say); answers the upstream's status and JSON. */
  const forward = async (body: unknown, headers: Record<string, string> = {}): Promise<{ readonly status: number; readonly json: unknown }> => {
    const response = await fetch(upstream, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) })
    return { status: response.status, json: await response.json() }
  }

  const currentSlot = async () => {
    const answer = (await forward({ jsonrpc: "2.0", id: 0, method: "getSlot", params: [] })).json as Answer
    return Number(answer.result)
  }

  /** The answer of a lagging endpoint: what it could know `lagSlots` behind `slot`. */
  const lagged = (call: Call, answer: Answer, slot: number): Answer => {
    const seenUpTo = slot - lagSlots
    const result = answer.result
    switch (call.method) {
      case "getSlot":
      case "getBlockHeight":
        return typeof result === "number" ? { ...answer, result: Math.min(result, seenUpTo) } : answer
      case "getEpochInfo":
        return isRecord(result)
          ? { ...answer, result: { ...result, absoluteSlot: Math.min(Number(result.absoluteSlot), seenUpTo), blockHeight: Math.min(Number(result.blockHeight), seenUpTo) } }
          : answer
      case "getSignatureStatuses": {
        if (!isRecord(result) || !Array.isArray(result.value)) return answer
        const value = result.value.map((status: unknown) => (isRecord(status) && Number(status.slot) > seenUpTo ? null : status))
        return { ...answer, result: { context: { slot: seenUpTo }, value } }
      }
      case "getTransaction":
        return isRecord(result) && Number(result.slot) > seenUpTo ? { ...answer, result: null } : answer
      case "getSignaturesForAddress": {
        const config = call.params?.[1]
        if (isRecord(config) && typeof config.minContextSlot === "number" && config.minContextSlot > seenUpTo) {
          return { jsonrpc: "2.0", id: answer.id, error: { code: -32016, message: "Minimum context slot has not been reached", data: { contextSlot: seenUpTo } } }
        }
        return Array.isArray(result) ? { ...answer, result: result.filter((entry: unknown) => !(isRecord(entry) && Number(entry.slot) > seenUpTo)) } : answer
      }
      case "getLatestBlockhash":
      case "getBalance":
      case "getAccountInfo":
      case "getMultipleAccounts":
        return isRecord(result) && isRecord(result.context) ? { ...answer, result: { ...result, context: { ...result.context, slot: Math.min(Number(result.context.slot), seenUpTo) } } } : answer
      default:
        return answer
    }
  }

  const addRule = (rule: FaultRule) =>
    rules.push({ rule, remaining: rule.times ?? Number.POSITIVE_INFINITY, untilMs: rule.forMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + rule.forMs, fired: false })

  const matches = (rule: FaultRule, calls: ReadonlyArray<Call>) => {
    const methods = rule.methods
    return methods === undefined || calls.some((call) => methods.includes(call.method ?? ""))
  }

  /** The first rule matching these calls (consuming one of its uses), or undefined. */
  const ruleFor = (calls: ReadonlyArray<Call>): FaultAction | undefined => {
    const now = Date.now()
    rules = rules.filter((active) => active.remaining > 0 && active.untilMs > now)
    const active = rules.find((candidate) => matches(candidate.rule, calls))
    if (active === undefined) return undefined
    active.remaining -= 1
    if (!active.fired) {
      active.fired = true
      for (const next of active.rule.then ?? []) addRule(next)
    }
    return active.rule.action
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse(await readBody(req)) as unknown
    const calls: ReadonlyArray<Call> = Array.isArray(body) ? (body as Array<Call>) : [body as Call]
    for (const call of calls) count(seen, call.method ?? "?")
    const action = ruleFor(calls)
    if (action !== undefined) count(faults, action.kind)
    if (action?.kind === "unavailable") {
      res.writeHead(503, { "content-type": "text/plain" })
      res.end("service unavailable (injected)")
      return
    }
    const credentials = Object.fromEntries(
      Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === "string" && !["host", "content-length", "connection"].includes(entry[0]))
    )
    const answered = forward(body, credentials)
    if (action?.kind === "duplicate") void forward(body, credentials).catch(() => undefined)
    const { status, json } = await answered
    let answer = json
    if (action?.kind === "loseAnswer") {
      req.socket.destroy()
      return
    }
    if (lagSlots > 0) {
      const slot = await currentSlot()
      answer = Array.isArray(answer)
        ? answer.map((item: Answer) => lagged(calls.find((call) => call.id === item.id) ?? {}, item, slot))
        : lagged(calls[0], answer as Answer, slot)
    }
    if (action?.kind === "delay") await new Promise((resolve) => setTimeout(resolve, action.ms))
    if (res.destroyed) return
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(answer))
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502)
        res.end()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    add: addRule,
    clear: () => {
      rules = []
      lagSlots = 0
    },
    lag: (slots) => {
      lagSlots = slots
    },
    seen,
    faults,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
