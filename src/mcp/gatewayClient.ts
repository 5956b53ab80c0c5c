/**
 * The tool server's only way into the service: HTTP to the gateway, with an identity (key, tenant).
 * Inside the gateway the identity is the caller's own; standalone it is API_KEY / TENANT_ID. So every
 * tool call passes the gateway's auth, scope, tenancy, rate limit and policy like a direct call.
 */
import { Data, Effect } from "effect"
import { INNER_CALL_HEADER } from "../gateway/innerCall.js"
import type { GatewayRequest } from "./toolDefinition.js"

export interface GatewayIdentity {
  readonly baseUrl: string
  /** Sent as x-api-key; absent only when the gateway enforces no auth (development). */
  readonly apiKey?: string
  /** Sent as x-tenant-id when set. */
  readonly tenantId?: string
  /** Set when the gateway calls itself for a request it already counted (src/gateway/innerCall.ts). */
  readonly innerCallToken?: string
}

/** The gateway's envelope, as far as a tool reads it. */
export interface Envelope {
  readonly status: "success" | "failure"
  readonly errorCode: string | null
  readonly failedAt: string | null
  readonly stage: string
  readonly traceId: string
  readonly data: unknown
  readonly error?: string
}

export interface GatewayAnswer {
  readonly httpStatus: number
  readonly envelope: Envelope
}

/** The gateway could not be reached or did not answer with an envelope. */
export class GatewayUnreachable extends Data.TaggedError("GatewayUnreachable")<{ readonly message: string }> {}

const queryString = (query: GatewayRequest["query"]) => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value))
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

const isEnvelope = (value: unknown): value is Envelope =>
  typeof value === "object" && value !== null && "status" in value && "traceId" in value

export const callGateway = (identity: GatewayIdentity, request: GatewayRequest) =>
  Effect.tryPromise({
    try: async (signal): Promise<GatewayAnswer> => {
      const headers: Record<string, string> = { "content-type": "application/json" }
      if (identity.apiKey !== undefined) headers["x-api-key"] = identity.apiKey
      if (identity.tenantId !== undefined) headers["x-tenant-id"] = identity.tenantId
      if (identity.innerCallToken !== undefined) headers[INNER_CALL_HEADER] = identity.innerCallToken
      const response = await fetch(identity.baseUrl.replace(/\/+$/, "") + request.path + queryString(request.query), {
        method: request.method,
        headers,
        signal,
        ...(request.body === undefined || request.method === "GET" ? {} : { body: JSON.stringify(request.body) })
      })
      const text = await response.text()
      const envelope: unknown = JSON.parse(text)
      if (!isEnvelope(envelope)) throw new Error(`answered ${response.status} without an envelope`)
      return { httpStatus: response.status, envelope }
    },
    catch: (error) => new GatewayUnreachable({ message: `gateway ${request.method} ${request.path}: ${error instanceof Error ? error.message : String(error)}` })
  })
