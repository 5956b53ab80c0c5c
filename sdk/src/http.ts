/**
 * The HTTP transport: the key and tenant headers, JSON in and out, the envelope read back, and the retries the
 * spec's guidance allows. A request is retried only when doing it again cannot do anything twice: reads and
 * settings (GET, PUT, DELETE), and creates that carry an idempotency key (the service answers the original
 * record for a repeated key). Retried: a connection that failed, a 429 (after the reset the service names), and
 * a PIPELINE_ERROR of the gateway or a 502/503 (an upstream was away), with exponential backoff and jitter.
 */
import type { Envelope } from "./envelope.js"
import { CustodyError, CustodyNetworkError } from "./errors.js"

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  readonly attempts?: number
  /** The first backoff (default 250 ms); each further one doubles, up to maxDelayMs (default 8 s). */
  readonly baseDelayMs?: number
  readonly maxDelayMs?: number
}

export interface TransportOptions {
  /** The gateway, e.g. http://127.0.0.1:3000 */
  readonly baseUrl: string
  readonly apiKey: string
  /** Sent as x-tenant-id: narrows a key bound to `*` to one tenant. */
  readonly tenantId?: string
  readonly retry?: RetryOptions
  /** Another fetch (a proxy agent, a test double). */
  readonly fetch?: typeof fetch
}

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
  /** May this request be sent again after a failure? (GET, PUT and DELETE always may.) */
  readonly idempotent?: boolean
}

export interface Answer<D> {
  readonly httpStatus: number
  readonly envelope: Envelope<D>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const isEnvelope = (value: unknown): value is Envelope<unknown> =>
  typeof value === "object" && value !== null && "status" in value && "traceId" in value && "data" in value

/** A failure after which the service may or may not have done what was asked. */
const answerLost = (error: unknown): boolean =>
  error instanceof CustodyNetworkError ||
  (error instanceof CustodyError && (error.httpStatus === 502 || error.httpStatus === 503 || (error.errorCode === "PIPELINE_ERROR" && error.failedAt === "gateway")))

export class Transport {
  readonly baseUrl: string
  private readonly apiKey: string
  private readonly tenantId: string | undefined
  private readonly attempts: number
  private readonly baseDelayMs: number
  private readonly maxDelayMs: number
  private readonly fetchImpl: typeof fetch

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "")
    this.apiKey = options.apiKey
    this.tenantId = options.tenantId
    this.attempts = Math.max(1, options.retry?.attempts ?? 4)
    this.baseDelayMs = options.retry?.baseDelayMs ?? 250
    this.maxDelayMs = options.retry?.maxDelayMs ?? 8_000
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init))
  }

  /** The headers of every request (the stage stream sends the same). */
  headers(): Record<string, string> {
    return { "x-api-key": this.apiKey, ...(this.tenantId === undefined ? {} : { "x-tenant-id": this.tenantId }) }
  }

  private url(path: string, query: RequestOptions["query"]): string {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value))
    const text = search.toString()
    return `${this.baseUrl}${path}${text === "" ? "" : `?${text}`}`
  }

  /** The backoff before attempt `attempt` + 1: exponential, with jitter, at most maxDelayMs. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1))
    return ceiling / 2 + Math.random() * (ceiling / 2)
  }

  /** How long a 429 asks to wait: until X-RateLimit-Reset (unix seconds) or Retry-After, else the backoff. */
  private rateLimitWait(response: Response, attempt: number): number {
    const retryAfter = Number(response.headers.get("retry-after"))
    if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(this.maxDelayMs * 4, retryAfter * 1000)
    const reset = Number(response.headers.get("x-ratelimit-reset"))
    if (Number.isFinite(reset) && reset > 0) return Math.min(this.maxDelayMs * 4, Math.max(0, reset * 1000 - Date.now()) + 50)
    return this.backoff(attempt)
  }

  /** Sends a request and reads its envelope, whatever its status; retries what may be retried. */
  async request<D>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<D>> {
    const idempotent = options.idempotent ?? (method === "GET" || method === "PUT" || method === "DELETE")
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.attempts
      let response: Response
      try {
        response = await this.fetchImpl(this.url(path, options.query), {
          method,
          headers: { ...this.headers(), ...(options.body === undefined ? {} : { "content-type": "application/json" }) },
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
        })
      } catch (error) {
        if (idempotent && !last) {
          await sleep(this.backoff(attempt))
          continue
        }
        throw new CustodyNetworkError(`${method} ${path}: the service could not be reached: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
      }
      const text = await response.text()
      let envelope: unknown
      try {
        envelope = JSON.parse(text)
      } catch {
        envelope = undefined
      }
      if (!isEnvelope(envelope)) {
        if (idempotent && !last && response.status >= 500) {
          await sleep(this.backoff(attempt))
          continue
        }
        throw new CustodyNetworkError(`${method} ${path}: HTTP ${response.status} without the service's envelope: ${text.slice(0, 200)}`)
      }
      // A 429 did nothing: wait it out, for any request.
      if (response.status === 429 && !last) {
        await sleep(this.rateLimitWait(response, attempt))
        continue
      }
      const upstreamAway = response.status === 502 || response.status === 503 || (envelope.errorCode === "PIPELINE_ERROR" && envelope.failedAt === "gateway")
      if (upstreamAway && idempotent && !last) {
        await sleep(this.backoff(attempt))
        continue
      }
      return { httpStatus: response.status, envelope: envelope as Envelope<D> }
    }
  }

  /**
   * Sends a request that must not be repeated blindly (done twice, it would do its work twice). When its answer
   * is lost (no answer, a 502/503, the gateway's PIPELINE_ERROR), `taken` reads whether the service did it all
   * the same: what it returns is the answer; `undefined` means not done, and the request is sent again, with
   * backoff, within the attempts.
   */
  async sendOnce<A>(send: () => Promise<A>, taken: () => Promise<A | undefined>): Promise<A> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send()
      } catch (error) {
        if (attempt >= this.attempts || !answerLost(error)) throw error
        await sleep(this.backoff(attempt))
        const found = await taken()
        if (found !== undefined) return found
      }
    }
  }

  /** The data of a success; a failure envelope becomes a CustodyError. */
  async data<D>(method: string, path: string, options: RequestOptions = {}): Promise<D> {
    const { httpStatus, envelope } = await this.request<D>(method, path, options)
    if (envelope.status === "failure") throw new CustodyError(httpStatus, envelope)
    return envelope.data
  }
}
