import { performance } from "node:perf_hooks"
import { Agent, request } from "undici"
import { RpcApplicationError, RpcUnavailableError, type RpcAttemptFailure } from "./rpcErrors.js"
import {
  initialEndpointStatus,
  rankEndpoints,
  recordFailure,
  recordSuccess,
  type RpcEndpointStatus
} from "./rpcScoring.js"
import { redactRpcUrl } from "./rpcUrl.js"

export interface RpcPoolOptions {
  /** per attempt, covering connect, headers and body; default 10,000 ms */
  readonly timeoutMs?: number
  /** extra passes over all endpoints after a pass where every one failed (CHAIN_RPC_MAX_RETRIES); default 0 */
  readonly maxRetries?: number
  /** pause before each extra pass (CHAIN_RPC_RETRY_DELAY_MS); default 1,000 ms */
  readonly retryDelayMs?: number
  /** called with redacted URLs each time a call moves on to the next endpoint */
  readonly onFailover?: (from: string, to: string) => void
  /** calls made in the same turn of the event loop share one JSON-RPC batch request, at most this many; default 16, 1 turns batching off */
  readonly maxBatch?: number
}

/** Solana's "node is unhealthy / behind" answer: the endpoint is not fit to serve, try another. */
const NODE_UNHEALTHY_CODE = -32005

/** "Minimum context slot has not been reached": the endpoint is behind the slot the caller asked for. */
const MIN_CONTEXT_SLOT_NOT_REACHED_CODE = -32016

/**
 * Judges an endpoint's answer before the caller may trust it: a reason when the answer cannot be taken
 * (an endpoint behind a slot the caller knows was reached), else undefined.
 */
export type AnswerJudge = (result: unknown) => string | undefined

type Attempt =
  | { readonly kind: "result"; readonly result: unknown; readonly latencyMs: number }
  | { readonly kind: "rpcError"; readonly code: number; readonly message: string; readonly data?: unknown; readonly latencyMs: number }
  | { readonly kind: "transport"; readonly error: string }

interface Endpoint {
  readonly url: string
  status: RpcEndpointStatus
  /** it answered a batch with something other than an array of answers: send it single calls only */
  refusesBatches: boolean
}

interface QueuedCall {
  readonly method: string
  readonly params: ReadonlyArray<unknown>
  readonly resolve: (result: unknown) => void
  readonly reject: (error: unknown) => void
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"])

const describeRequestError = (error: unknown, timeoutMs: number): string => {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code
    if (typeof code === "string" && TIMEOUT_CODES.has(code)) return `timeout after ${timeoutMs} ms`
    if (typeof code === "string") return `network error ${code}`
    return `network error: ${error.message}`
  }
  return "network error"
}

/**
 * JSON-RPC 2.0 over HTTP to N endpoints, best score first, cascading to the next on a
 * transport failure. Uses undici's `request` on one keep-alive Agent, with undici's own connect,
 * headers and body timeouts: global fetch costs a web stream and an AbortSignal per call, about
 * twice the CPU for the small bodies JSON-RPC sends.
 * Scores live in process memory: they are a routing hint, not a correctness input.
 *
 * Calls made in the same turn of the event loop (concurrent pipeline jobs at the same step) go to the
 * best endpoint as one JSON-RPC batch: one HTTP request, one socket write and one read instead of one per
 * call, on both sides. A lone call goes as before. Each call of a batch keeps its own outcome: a
 * JSON-RPC error answers that call only; a call the batch did not answer, or answered "node unhealthy",
 * and every call of a batch that failed in transport, is made again alone through the usual cascade (as a
 * single call that failed in transport would have been: a resent sendTransaction carries the same
 * signature, so the cluster lands it at most once). An endpoint that answers a batch with anything but an
 * array of answers (some providers refuse batches) gets single calls from then on.
 */
export class RpcPool {
  private readonly endpoints: Endpoint[]
  private readonly timeoutMs: number
  private readonly maxRetries: number
  private readonly retryDelayMs: number
  private readonly onFailover: ((from: string, to: string) => void) | undefined
  private readonly dispatcher: Agent
  private readonly maxBatch: number
  private nextId = 1
  private failovers = 0
  private queued: QueuedCall[] = []
  private flushScheduled = false

  constructor(urls: ReadonlyArray<string>, options: RpcPoolOptions = {}) {
    const unique = [...new Set(urls.map((u) => u.trim()).filter((u) => u.length > 0))]
    if (unique.length === 0) throw new Error("RpcPool needs at least one RPC URL")
    for (const url of unique) {
      const protocol = new URL(url).protocol
      if (protocol !== "http:" && protocol !== "https:") throw new Error(`RPC URL must be http(s): ${redactRpcUrl(url)}`)
    }
    this.endpoints = unique.map((url) => ({ url, status: initialEndpointStatus(redactRpcUrl(url)), refusesBatches: false }))
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.maxRetries = options.maxRetries ?? 0
    this.retryDelayMs = options.retryDelayMs ?? 1_000
    this.onFailover = options.onFailover
    this.maxBatch = Math.max(1, options.maxBatch ?? 16)
    this.dispatcher = new Agent({
      keepAliveTimeout: 30_000,
      connectTimeout: this.timeoutMs,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs
    })
  }

  /** CHAIN_RPC_URL first, then CHAIN_RPC_POOL_URLS (comma list); duplicates dropped. */
  static fromConfig(primaryUrl: string | undefined, poolUrls: string | undefined, options?: RpcPoolOptions): RpcPool {
    return new RpcPool([primaryUrl ?? "", ...(poolUrls ?? "").split(",")], options)
  }

  get failoverCount(): number {
    return this.failovers
  }

  /** Statuses in configured order (URLs redacted). */
  status(): RpcEndpointStatus[] {
    return this.endpoints.map((e) => e.status)
  }

  /** Statuses in the order the next call will try them. */
  ranked(): RpcEndpointStatus[] {
    return this.rankedEndpoints().map((e) => e.status)
  }

  /**
   * Sends `method` to the best endpoint (in a batch with the calls of the same event-loop turn) and
   * cascades on transport failure. Rejects with RpcApplicationError (a JSON-RPC error answer) or RpcUnavailableError.
   */
  call<T>(method: string, params: ReadonlyArray<unknown> = []): Promise<T> {
    if (this.maxBatch === 1) return this.callAlone<T>(method, params)
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ method, params, resolve: resolve as (result: unknown) => void, reject })
      if (!this.flushScheduled) {
        this.flushScheduled = true
        setImmediate(() => this.flush())
      }
    })
  }

  /**
   * A call whose answer is taken only when `judge` accepts it: an answer it refuses (and a "minimum
   * context slot not reached" error) counts as that endpoint failing, and the call goes on to the next.
   * Never batched. For reads a conclusion rests on, such as "this signature did not land", which one
   * lagging endpoint must not decide.
   */
  callTrusted<T>(method: string, params: ReadonlyArray<unknown>, judge: AnswerJudge): Promise<T> {
    return this.callAlone<T>(method, params, undefined, judge)
  }

  private flush() {
    this.flushScheduled = false
    const queued = this.queued
    this.queued = []
    for (let start = 0; start < queued.length; start += this.maxBatch) {
      const calls = queued.slice(start, start + this.maxBatch)
      const best = this.rankedEndpoints()[0]
      if (calls.length === 1 || best.refusesBatches) {
        for (const c of calls) this.callAlone(c.method, c.params).then(c.resolve, c.reject)
      } else {
        // (a throw here is a bug; it must still answer every call rather than leave them waiting)
        this.sendBatch(best, calls).catch((error: unknown) => calls.forEach((c) => c.reject(error)))
      }
    }
  }

  /** One batch to `endpoint`; whatever it does not answer goes again alone through the cascade. */
  private async sendBatch(endpoint: Endpoint, calls: ReadonlyArray<QueuedCall>) {
    const ids = calls.map(() => this.nextId++)
    const answered = await this.post(endpoint.url, calls.map((c, i) => ({ jsonrpc: "2.0", id: ids[i], method: c.method, params: c.params })))
    const alone = (c: QueuedCall, error?: string) =>
      this.callAlone(c.method, c.params, error === undefined ? undefined : { endpoint, error }).then(c.resolve, c.reject)
    if (answered.kind === "transport") {
      endpoint.status = recordFailure(endpoint.status, answered.error, new Date())
      for (const c of calls) alone(c, answered.error)
      return
    }
    if (!Array.isArray(answered.body)) {
      endpoint.refusesBatches = true
      for (const c of calls) alone(c)
      return
    }
    endpoint.status = recordSuccess(endpoint.status, answered.latencyMs, new Date())
    const byId = new Map<unknown, unknown>()
    for (const item of answered.body) if (isRecord(item)) byId.set(item.id, item)
    calls.forEach((c, i) => {
      const attempt = this.attemptOf(answered.status, byId.get(ids[i]), ids[i], answered.latencyMs)
      if (attempt.kind === "result") c.resolve(attempt.result)
      else if (attempt.kind === "rpcError" && attempt.code !== NODE_UNHEALTHY_CODE) c.reject(this.applicationError(c.method, endpoint, attempt))
      else {
        const error = attempt.kind === "transport" ? attempt.error : `node unhealthy: ${attempt.message}`
        endpoint.status = recordFailure(endpoint.status, error, new Date())
        alone(c, error)
      }
    })
  }

  private applicationError(method: string, endpoint: Endpoint, attempt: { readonly code: number; readonly message: string; readonly data?: unknown }) {
    return new RpcApplicationError({
      method,
      url: endpoint.status.url,
      code: attempt.code,
      rpcMessage: attempt.message,
      data: attempt.data,
      message: `${method} failed: JSON-RPC error ${attempt.code}: ${attempt.message}`
    })
  }

  /** One call on its own: the best endpoint first, the next on a transport failure or an unhealthy node. */
  private async callAlone<T>(
    method: string,
    params: ReadonlyArray<unknown>,
    failedIn?: { readonly endpoint: Endpoint; readonly error: string },
    judge?: AnswerJudge
  ): Promise<T> {
    // A call whose batch failed at `failedIn` goes on as a single call failing there would have: with the
    // next endpoint, and that endpoint counted as tried in this pass.
    const failures: RpcAttemptFailure[] = failedIn === undefined ? [] : [{ url: failedIn.endpoint.status.url, error: failedIn.error }]
    for (let pass = 0; pass <= this.maxRetries; pass++) {
      if (pass > 0) await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs))
      const order = pass === 0 && failedIn !== undefined ? this.rankedEndpoints().filter((e) => e !== failedIn.endpoint) : this.rankedEndpoints()
      if (pass === 0 && failedIn !== undefined && order[0] !== undefined) {
        this.failovers++
        this.onFailover?.(failedIn.endpoint.status.url, order[0].status.url)
      }
      for (let i = 0; i < order.length; i++) {
        const endpoint = order[i]
        const attempt = await this.send(endpoint.url, method, params)
        const refused = attempt.kind === "result" && judge !== undefined ? judge(attempt.result) : undefined
        if (attempt.kind === "result" && refused === undefined) {
          endpoint.status = recordSuccess(endpoint.status, attempt.latencyMs, new Date())
          return attempt.result as T
        }
        const behind = judge !== undefined && attempt.kind === "rpcError" && attempt.code === MIN_CONTEXT_SLOT_NOT_REACHED_CODE
        if (attempt.kind === "rpcError" && attempt.code !== NODE_UNHEALTHY_CODE && !behind) {
          // the endpoint answered: it is healthy, the request was refused
          endpoint.status = recordSuccess(endpoint.status, attempt.latencyMs, new Date())
          throw this.applicationError(method, endpoint, attempt)
        }
        const error =
          attempt.kind === "transport" ? attempt.error
          : attempt.kind === "result" ? `answer not trusted: ${refused}`
          : behind ? `behind: ${attempt.message}`
          : `node unhealthy: ${attempt.message}`
        endpoint.status = recordFailure(endpoint.status, error, new Date())
        failures.push({ url: endpoint.status.url, error })
        const next = order[i + 1]
        if (next !== undefined) {
          this.failovers++
          this.onFailover?.(endpoint.status.url, next.status.url)
        }
      }
    }
    throw new RpcUnavailableError({
      method,
      attempts: failures,
      message: `${method} failed on every RPC endpoint: ${failures.map((f) => `${f.url} (${f.error})`).join("; ")}`
    })
  }

  /** getHealth on every endpoint at once; "ok" is a success, anything else a failure. */
  async probe(): Promise<RpcEndpointStatus[]> {
    await Promise.all(
      this.endpoints.map(async (endpoint) => {
        const attempt = await this.send(endpoint.url, "getHealth", [])
        const at = new Date()
        if (attempt.kind === "result" && attempt.result === "ok") {
          endpoint.status = recordSuccess(endpoint.status, attempt.latencyMs, at)
        } else {
          const error =
            attempt.kind === "transport"
              ? attempt.error
              : attempt.kind === "rpcError"
                ? `getHealth: JSON-RPC error ${attempt.code}: ${attempt.message}`
                : `getHealth answered ${JSON.stringify(attempt.result)}`
          endpoint.status = recordFailure(endpoint.status, error, at)
        }
      })
    )
    return this.status()
  }

  private rankedEndpoints(): Endpoint[] {
    const ranked = rankEndpoints(this.endpoints.map((endpoint) => ({ endpoint, ...endpoint.status })))
    return ranked.map((r) => r.endpoint)
  }

  private async send(url: string, method: string, params: ReadonlyArray<unknown>): Promise<Attempt> {
    const id = this.nextId++
    const answered = await this.post(url, { jsonrpc: "2.0", id, method, params })
    if (answered.kind === "transport") return answered
    return this.attemptOf(answered.status, answered.body, id, answered.latencyMs)
  }

  /** One HTTP POST of a JSON-RPC request or batch: its parsed body, or a transport failure. */
  private async post(url: string, payload: unknown): Promise<{ readonly kind: "answered"; readonly status: number; readonly body: unknown; readonly latencyMs: number } | { readonly kind: "transport"; readonly error: string }> {
    const started = performance.now()
    let status: number
    let text: string
    try {
      const response = await request(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(payload),
        dispatcher: this.dispatcher
      })
      status = response.statusCode
      text = await response.body.text()
    } catch (error) {
      return { kind: "transport", error: describeRequestError(error, this.timeoutMs) }
    }
    const latencyMs = performance.now() - started
    if (status >= 500 || status === 429) return { kind: "transport", error: `HTTP ${status}` }
    try {
      return { kind: "answered", status, body: JSON.parse(text), latencyMs }
    } catch {
      return { kind: "transport", error: `HTTP ${status}: response is not JSON` }
    }
  }

  /** What one JSON-RPC answer (`body`, to request `id`) says. */
  private attemptOf(status: number, body: unknown, id: number, latencyMs: number): Attempt {
    if (!isRecord(body) || body.jsonrpc !== "2.0" || body.id !== id) {
      return { kind: "transport", error: `HTTP ${status}: not a JSON-RPC 2.0 response to request ${id}` }
    }
    if (isRecord(body.error) && typeof body.error.code === "number") {
      const message = typeof body.error.message === "string" ? body.error.message : "no message"
      return { kind: "rpcError", code: body.error.code, message, data: body.error.data, latencyMs }
    }
    if (status < 200 || status >= 300 || !("result" in body)) {
      return { kind: "transport", error: `HTTP ${status}: JSON-RPC response without result` }
    }
    return { kind: "result", result: body.result, latencyMs }
  }
}
