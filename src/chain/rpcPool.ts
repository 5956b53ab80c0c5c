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
}

/** Solana's "node is unhealthy / behind" answer: the endpoint is not fit to serve, try another. */
const NODE_UNHEALTHY_CODE = -32005

type Attempt =
  | { readonly kind: "result"; readonly result: unknown; readonly latencyMs: number }
  | { readonly kind: "rpcError"; readonly code: number; readonly message: string; readonly data?: unknown; readonly latencyMs: number }
  | { readonly kind: "transport"; readonly error: string }

interface Endpoint {
  readonly url: string
  status: RpcEndpointStatus
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
 */
export class RpcPool {
  private readonly endpoints: Endpoint[]
  private readonly timeoutMs: number
  private readonly maxRetries: number
  private readonly retryDelayMs: number
  private readonly onFailover: ((from: string, to: string) => void) | undefined
  private readonly dispatcher: Agent
  private nextId = 1
  private failovers = 0

  constructor(urls: ReadonlyArray<string>, options: RpcPoolOptions = {}) {
    const unique = [...new Set(urls.map((u) => u.trim()).filter((u) => u.length > 0))]
    if (unique.length === 0) throw new Error("RpcPool needs at least one RPC URL")
    for (const url of unique) {
      const protocol = new URL(url).protocol
      if (protocol !== "http:" && protocol !== "https:") throw new Error(`RPC URL must be http(s): ${redactRpcUrl(url)}`)
    }
    this.endpoints = unique.map((url) => ({ url, status: initialEndpointStatus(redactRpcUrl(url)) }))
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.maxRetries = options.maxRetries ?? 0
    this.retryDelayMs = options.retryDelayMs ?? 1_000
    this.onFailover = options.onFailover
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
   * Sends `method` to the best endpoint and cascades on transport failure.
   * Rejects with RpcApplicationError (a JSON-RPC error answer) or RpcUnavailableError.
   */
  async call<T>(method: string, params: ReadonlyArray<unknown> = []): Promise<T> {
    const failures: RpcAttemptFailure[] = []
    for (let pass = 0; pass <= this.maxRetries; pass++) {
      if (pass > 0) await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs))
      const order = this.rankedEndpoints()
      for (let i = 0; i < order.length; i++) {
        const endpoint = order[i]
        const attempt = await this.send(endpoint.url, method, params)
        if (attempt.kind === "result") {
          endpoint.status = recordSuccess(endpoint.status, attempt.latencyMs, new Date())
          return attempt.result as T
        }
        if (attempt.kind === "rpcError" && attempt.code !== NODE_UNHEALTHY_CODE) {
          // the endpoint answered: it is healthy, the request was refused
          endpoint.status = recordSuccess(endpoint.status, attempt.latencyMs, new Date())
          throw new RpcApplicationError({
            method,
            url: endpoint.status.url,
            code: attempt.code,
            rpcMessage: attempt.message,
            data: attempt.data,
            message: `${method} failed: JSON-RPC error ${attempt.code}: ${attempt.message}`
          })
        }
        const error = attempt.kind === "transport" ? attempt.error : `node unhealthy: ${attempt.message}`
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
    const started = performance.now()
    let status: number
    let text: string
    try {
      const response = await request(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        dispatcher: this.dispatcher
      })
      status = response.statusCode
      text = await response.body.text()
    } catch (error) {
      return { kind: "transport", error: describeRequestError(error, this.timeoutMs) }
    }
    const latencyMs = performance.now() - started
    if (status >= 500 || status === 429) return { kind: "transport", error: `HTTP ${status}` }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return { kind: "transport", error: `HTTP ${status}: response is not JSON` }
    }
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
