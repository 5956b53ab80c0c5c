// JSON-RPC 2.0 framing shared by the HTTP endpoint and the PubSub socket: parse, dispatch, batch, errors.

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown
  ) {
    super(message)
  }
}

export class InvalidParamsError extends RpcError {
  constructor(message: string) {
    super(-32602, message)
  }
}

export type RpcHandler = (params: unknown[]) => unknown
export type RpcMethodTable = ReadonlyMap<string, RpcHandler>

interface RpcRequest {
  readonly id: unknown
  readonly method: unknown
  readonly params: unknown
}

type RpcResponse = Record<string, unknown>

function errorResponse(id: unknown, error: RpcError): RpcResponse {
  const body: Record<string, unknown> = { code: error.code, message: error.message }
  if (error.data !== undefined) body.data = error.data
  return { jsonrpc: "2.0", error: body, id: id ?? null }
}

function isRequest(value: unknown): value is RpcRequest {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

export function callMethod(methods: RpcMethodTable, request: unknown): RpcResponse {
  if (!isRequest(request) || request.method === undefined) {
    return errorResponse(null, new RpcError(-32600, "Invalid request"))
  }
  const { id, method, params } = request
  if (typeof method !== "string") return errorResponse(id, new RpcError(-32600, "Invalid request"))
  const handler = methods.get(method)
  if (handler === undefined) return errorResponse(id, new RpcError(-32601, "Method not found"))
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    return errorResponse(id, new InvalidParamsError("Invalid params: expected an array of parameters"))
  }
  try {
    const result = handler(Array.isArray(params) ? params : [])
    return { jsonrpc: "2.0", result, id: id ?? null }
  } catch (error) {
    if (error instanceof RpcError) return errorResponse(id, error)
    const message = error instanceof Error ? error.message : String(error)
    return errorResponse(id, new RpcError(-32603, `Internal error: ${message}`))
  }
}

/** Handles one HTTP body (single request or batch); returns the response text, or null when nothing is owed. */
export function handleRpcBody(methods: RpcMethodTable, body: string): string | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return serialize(errorResponse(null, new RpcError(-32700, "Parse error")))
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return serialize(errorResponse(null, new RpcError(-32600, "Invalid request")))
    return serialize(parsed.map((request) => callMethod(methods, request)))
  }
  return serialize(callMethod(methods, parsed))
}

// rentEpoch is u64::MAX on current clusters; JavaScript prints that double as 18446744073709552000, which
// is out of u64 range for strict clients, so the exact text is restored after stringifying.
const ROUNDED_RENT_EPOCH = `"rentEpoch":${String(18446744073709551615)}`

export function serialize(value: unknown): string {
  const text = JSON.stringify(value)
  return text.includes(ROUNDED_RENT_EPOCH) ? text.replaceAll(ROUNDED_RENT_EPOCH, '"rentEpoch":18446744073709551615') : text
}

// ---- parameter helpers: every handler validates its input and answers -32602 on anything else ----

export function requireString(params: unknown[], index: number, what: string): string {
  const value = params[index]
  if (typeof value !== "string") throw new InvalidParamsError(`Invalid params: ${what} must be a string`)
  return value
}

export function optionalConfig(params: unknown[], index: number): Record<string, unknown> {
  const value = params[index]
  if (value === undefined || value === null) return {}
  if (typeof value !== "object" || Array.isArray(value)) throw new InvalidParamsError("Invalid params: config must be an object")
  return value as Record<string, unknown>
}

export function requireNonNegativeInteger(params: unknown[], index: number, what: string): number {
  const value = params[index]
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidParamsError(`Invalid params: ${what} must be a non-negative integer`)
  }
  return value
}

export function requireStringArray(params: unknown[], index: number, what: string, max: number): string[] {
  const value = params[index]
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === "string")) {
    throw new InvalidParamsError(`Invalid params: ${what} must be an array of strings`)
  }
  if (value.length > max) throw new InvalidParamsError(`Too many inputs provided; max ${max}`)
  return value
}
