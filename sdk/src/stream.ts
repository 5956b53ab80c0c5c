/**
 * The stage stream (`/api/v1/stream`, a WebSocket) as an async iterator: one event per recorded transition of
 * the transactions, wallets or agents subscribed to, in order. `openStageStream` resolves once the service
 * acknowledged the subscription, so nothing that happens after it is missed.
 *
 *   const stream = await custody.stream({ txId })
 *   for await (const event of stream) if (event.status === "confirmed" || event.status === "failed") break
 *
 * Breaking out of the loop (or `close()`) closes the socket. Node 20 has no global WebSocket: install `ws` (it
 * is found by itself) or pass `WebSocket`.
 *
 * Events may be missed when the service's process loses its database's LISTEN connection for a moment (other
 * processes' events in between are not heard), or when more events come at once than its buffer for this
 * connection holds. The service then says so: each transaction named by `txId` comes
 * again with its current state (a loop waiting for an outcome still sees it), and `onGap` is called, for who
 * follows wallets or agents and must read them again.
 */
import type { TransactionStatus } from "./generated.js"

export interface StageEvent {
  readonly type: "stage"
  readonly txId: string
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly status: TransactionStatus
  readonly stage: string
  readonly at: string
  readonly message?: string
  readonly signature?: string
  readonly failedAt?: string
  readonly errorCode?: string
}

/** The service's notice that events may have been missed (see above). */
export interface StreamGap {
  readonly type: "gap"
  readonly at: string
  readonly reason: string
}

export interface StageFilter {
  readonly txId?: string
  readonly walletId?: string
  readonly agentId?: string
}

/** What the stream needs of a WebSocket: the browser's, Node 22's, or the `ws` package's. */
export interface WebSocketLike {
  addEventListener(type: string, listener: (event: { readonly data?: unknown; readonly code?: number; readonly reason?: string }) => void): void
  send(data: string): void
  close(code?: number, reason?: string): void
}

/** A WebSocket class; `headers` is passed as the second argument only to one that takes options (`ws`). */
export type WebSocketClass = new (url: string, options?: { readonly headers: Record<string, string> }) => WebSocketLike

export interface StageStream extends AsyncIterable<StageEvent> {
  close(): void
}

/** The WebSocket class to use: the one given, the global one, or the `ws` package's. */
export const resolveWebSocket = async (given?: WebSocketClass): Promise<{ readonly socket: WebSocketClass; readonly takesHeaders: boolean }> => {
  if (given !== undefined) return { socket: given, takesHeaders: false }
  const global = (globalThis as { readonly WebSocket?: WebSocketClass }).WebSocket
  if (global !== undefined) return { socket: global, takesHeaders: false }
  try {
    const module = (await import("ws" as string)) as { readonly WebSocket?: WebSocketClass; readonly default?: WebSocketClass }
    const socket = module.WebSocket ?? module.default
    if (socket !== undefined) return { socket, takesHeaders: true }
  } catch {
    // not installed: said below
  }
  throw new Error("the stage stream needs a WebSocket: this runtime has none; install `ws` or pass the WebSocket option")
}

export const openStageStream = async (options: {
  readonly baseUrl: string
  readonly headers: Record<string, string>
  readonly filter: StageFilter
  readonly WebSocket?: WebSocketClass
  readonly onGap?: (gap: StreamGap) => void
}): Promise<StageStream> => {
  const { socket: Socket, takesHeaders } = await resolveWebSocket(options.WebSocket)
  const url = new URL(`${options.baseUrl.replace(/^http/, "ws")}/api/v1/stream`)
  for (const [name, value] of Object.entries(options.filter)) if (value !== undefined) url.searchParams.set(name, value)
  // Browsers cannot send headers with a WebSocket: the key then travels as the query the service also reads.
  if (!takesHeaders) {
    url.searchParams.set("apiKey", options.headers["x-api-key"] ?? "")
    if (options.headers["x-tenant-id"] !== undefined) url.searchParams.set("tenantId", options.headers["x-tenant-id"])
  }
  const ws = takesHeaders ? new Socket(url.toString(), { headers: options.headers }) : new Socket(url.toString())

  const buffered: Array<StageEvent> = []
  const waiting: Array<{ resolve: (result: IteratorResult<StageEvent>) => void; reject: (error: Error) => void }> = []
  let ended = false
  let failure: Error | undefined
  let acknowledged: (() => void) | undefined
  let refused: ((error: Error) => void) | undefined
  const ready = new Promise<void>((resolve, reject) => {
    acknowledged = resolve
    refused = reject
  })

  const finish = (error?: Error) => {
    if (ended) return
    ended = true
    failure = error
    refused?.(error ?? new Error("the stage stream closed before it was ready"))
    for (const waiter of waiting.splice(0)) error === undefined ? waiter.resolve({ done: true, value: undefined }) : waiter.reject(error)
  }

  ws.addEventListener("message", (event) => {
    let message: { readonly type?: string; readonly error?: string }
    try {
      message = JSON.parse(typeof event.data === "string" ? event.data : String(event.data)) as typeof message
    } catch {
      return
    }
    if (message.type === "subscribed") acknowledged?.()
    else if (message.type === "error") finish(new Error(`stage stream: ${message.error ?? "error"}`))
    else if (message.type === "gap") options.onGap?.(message as StreamGap)
    else if (message.type === "stage") {
      const waiter = waiting.shift()
      if (waiter !== undefined) waiter.resolve({ done: false, value: message as StageEvent })
      else buffered.push(message as StageEvent)
    }
  })
  ws.addEventListener("close", (event) => finish(event.code === 1000 || event.code === 1005 ? undefined : new Error(`stage stream closed (${event.code ?? "?"}${event.reason ? `: ${event.reason}` : ""})`)))
  ws.addEventListener("error", () => finish(new Error("stage stream: the connection failed (a refused key, scope or too many connections answers before the upgrade)")))

  const close = () => {
    finish()
    ws.close(1000)
  }
  await ready
  return {
    close,
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const next = buffered.shift()
        if (next !== undefined) return Promise.resolve({ done: false, value: next })
        if (ended) return failure === undefined ? Promise.resolve({ done: true, value: undefined }) : Promise.reject(failure)
        return new Promise<IteratorResult<StageEvent>>((resolve, reject) => waiting.push({ resolve, reject }))
      },
      return: () => {
        close()
        return Promise.resolve({ done: true, value: undefined })
      }
    })
  }
}
