/**
 * The typed client of the gateway, derived from the same declarations the routes and the OpenAPI
 * document come from (schemas/api/): `client.transactions.get({ params: { txId } })` sends what the
 * endpoint declares and answers the envelope with `data` decoded by the endpoint's success schema
 * (amounts as bigint). It calls through `api()`, so every answer is also checked against the document.
 */
import { Schema } from "effect"
import { AgentsApi } from "../../schemas/api/agents.js"
import { AuditApi } from "../../schemas/api/audit.js"
import type { AnySchema, Endpoint } from "../../schemas/api/endpoint.js"
import { EscrowApi } from "../../schemas/api/escrow.js"
import { HealthApi } from "../../schemas/api/health.js"
import { ChaosApi, OutboxApi } from "../../schemas/api/operations.js"
import { PoliciesApi } from "../../schemas/api/policies.js"
import { ProtocolsApi } from "../../schemas/api/protocols.js"
import { RiskApi } from "../../schemas/api/risk.js"
import { RuntimeApi } from "../../schemas/api/runtime.js"
import { TransactionsApi } from "../../schemas/api/transactions.js"
import { StrategyApi, TreasuryApi } from "../../schemas/api/treasury.js"
import { WalletsApi } from "../../schemas/api/wallets.js"
import { DefiApi } from "../../schemas/api/defi.js"
import { LendingApi } from "../../schemas/api/lending.js"
import { McpApi } from "../../schemas/api/mcp.js"
import { RpcPoolApi } from "../../schemas/api/operations.js"
import { PositionsApi } from "../../schemas/api/positions.js"
import { WebhooksApi } from "../../schemas/api/webhooks.js"
import { ApprovalsApi } from "../../schemas/api/approvals.js"
import { KeysApi } from "../../schemas/api/keys.js"
import { ADMIN_KEY, api, type ApiAnswer } from "./service.js"

type Encoded<S> = S extends Schema.Schema<any, infer I, never> ? I : never
type Decoded<S> = S extends Schema.Schema<infer A, any, never> ? A : unknown

/** What a call takes: the declared path parameters and body (as sent), and the query if any. */
export type EndpointInput<E> =
  E extends Endpoint<infer P, infer Q, infer B, any>
    ? (P extends AnySchema ? { readonly params: Encoded<P> } : {}) &
        (Q extends AnySchema ? { readonly query?: Partial<Record<keyof Encoded<Q>, string | number>> } : {}) &
        (B extends AnySchema ? ({} extends Encoded<B> ? { readonly body?: Encoded<B> } : { readonly body: Encoded<B> }) : { readonly body?: unknown })
    : never

/**
 * The wire form of an endpoint's `data` (its success schema's encoded side): for a raw `api<...>()` call
 * that sends what the declaration does not allow (a refused body, a raw query string) but still reads the data.
 */
export type WireDataOf<E> = E extends Endpoint<any, any, any, infer S> ? Encoded<S> : never

/** The answer: HTTP status, the envelope as sent, and `data` decoded when the envelope carries the declared data. */
export interface EndpointAnswer<E> extends ApiAnswer<E extends Endpoint<any, any, any, infer S> ? Encoded<S> : unknown> {
  readonly data: E extends Endpoint<any, any, any, infer S> ? Decoded<S> | undefined : undefined
}

const fillPath = (path: string, params: Record<string, unknown> | undefined) =>
  path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(params?.[name] ?? "")))

const queryString = (query: Record<string, unknown> | undefined) => {
  const entries = Object.entries(query ?? {}).filter(([, value]) => value !== undefined)
  return entries.length === 0 ? "" : "?" + new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()
}

export const callEndpoint = async <E extends Endpoint>(
  baseUrl: string,
  endpoint: E,
  input: EndpointInput<E>,
  headers: Record<string, string>
): Promise<EndpointAnswer<E>> => {
  const given = input as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown }
  const body = given.body ?? (endpoint.method === "GET" ? undefined : {})
  const answer = await api(baseUrl, endpoint.method, fillPath(endpoint.path, given.params) + queryString(given.query), body, headers)
  const carriesData = answer.body.status === "success" || endpoint.recordOnFailure
  const data =
    endpoint.success !== undefined && carriesData && answer.body.data !== null
      ? Schema.decodeUnknownSync(endpoint.success as AnySchema)(answer.body.data)
      : undefined
  return { ...answer, data } as EndpointAnswer<E>
}

type Group<G> = { readonly [K in keyof G]: (input: EndpointInput<G[K]>) => Promise<EndpointAnswer<G[K]>> }

const bind = <G extends Record<string, Endpoint>>(group: G, baseUrl: string, headers: Record<string, string>): Group<G> =>
  Object.fromEntries(Object.entries(group).map(([name, endpoint]) => [name, (input: never) => callEndpoint(baseUrl, endpoint, input, headers)])) as Group<G>

/** A client of the service at `baseUrl`, with the admin key unless headers say otherwise. */
export const makeClient = (baseUrl: string, headers: Record<string, string> = { "x-api-key": ADMIN_KEY }) => ({
  health: bind(HealthApi, baseUrl, headers),
  wallets: bind(WalletsApi, baseUrl, headers),
  transactions: bind(TransactionsApi, baseUrl, headers),
  approvals: bind(ApprovalsApi, baseUrl, headers),
  policies: bind(PoliciesApi, baseUrl, headers),
  agents: bind(AgentsApi, baseUrl, headers),
  audit: bind(AuditApi, baseUrl, headers),
  // DeFi helpers, escrows, positions, the RPC pool and the tool interface (answers in the envelope;
  // /metrics, /mcp's JSON-RPC and the console are not, so they are not here).
  defi: bind(DefiApi, baseUrl, headers),
  lending: bind(LendingApi, baseUrl, headers),
  escrow: bind(EscrowApi, baseUrl, headers),
  positions: bind(PositionsApi, baseUrl, headers),
  rpcPool: bind(RpcPoolApi, baseUrl, headers),
  mcp: bind(McpApi, baseUrl, headers),
  chaos: bind(ChaosApi, baseUrl, headers),
  outbox: bind(OutboxApi, baseUrl, headers),
  protocols: bind(ProtocolsApi, baseUrl, headers),
  risk: bind(RiskApi, baseUrl, headers),
  runtime: bind(RuntimeApi, baseUrl, headers),
  strategy: bind(StrategyApi, baseUrl, headers),
  treasury: bind(TreasuryApi, baseUrl, headers),
  webhooks: bind(WebhooksApi, baseUrl, headers),
  keys: bind(KeysApi, baseUrl, headers)
})

export type Client = ReturnType<typeof makeClient>

/**
 * The decoded `data` of an answer the test needs in order to go on: throws, showing the envelope, when
 * the answer carries none (a refusal, an undeclared failure), so a read never goes on with `undefined`.
 */
export const dataOf = <A extends { readonly status: number; readonly body: unknown; readonly data: unknown }>(answer: A): NonNullable<A["data"]> => {
  if (answer.data === undefined || answer.data === null) throw new Error(`expected data, got ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.data as NonNullable<A["data"]>
}
