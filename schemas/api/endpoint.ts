/**
 * One endpoint of the contract: method, path, and the schemas of what it reads and answers. The
 * gateway's `route()` takes it (src/gateway/route.ts), the OpenAPI document is generated from it
 * (src/gateway/openApi.ts), and the typed test client calls through it (test/support/client.ts), so the
 * three cannot disagree (docs/decisions/api-contract.md). Nothing here does I/O.
 */
import type * as Schema from "effect/Schema"

export type EndpointMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** A schema without requirements, as the contract's schemas are. */
export type AnySchema = Schema.Schema<any, any, never>

/**
 * An answer outside the envelope, for the few routes whose clients expect another format: Prometheus
 * text, the MCP transport's JSON-RPC, the console's files. Their failures before the handler (a missing
 * key, a refused scope) are still the envelope.
 */
export interface RawAnswer {
  /** An HTTP status, or `default` for any other answer the route's own protocol gives. */
  readonly status: number | "default"
  readonly description: string
  /** Media types the answer may carry. */
  readonly contentTypes: ReadonlyArray<string>
  /** A JSON Schema of the body where it is JSON (default: any text). */
  readonly schema?: Readonly<Record<string, unknown>>
}

export interface Endpoint<
  Params extends AnySchema | undefined = AnySchema | undefined,
  Query extends AnySchema | undefined = AnySchema | undefined,
  Body extends AnySchema | undefined = AnySchema | undefined,
  Success extends AnySchema | undefined = AnySchema | undefined
> {
  readonly method: EndpointMethod
  /** The router's form, parameters as `:name`. */
  readonly path: string
  /** Resource group: the OpenAPI tag and the typed client's namespace. */
  readonly group: string
  readonly summary: string
  /** Path parameters, a Struct of the `:name`s (as strings on the wire). */
  readonly params: Params
  /** Query parameters, a Struct of strings on the wire. */
  readonly query: Query
  /** The JSON request body. */
  readonly body: Body
  /** The envelope's `data` of a success (undefined: not declared yet, any JSON). */
  readonly success: Success
  /** The HTTP statuses a success answers with (201 created, 202 at the approval gate...). */
  readonly successStatuses: ReadonlyArray<number>
  /**
   * A transaction record: when the transaction failed it still answers the record as `data`, in a failure
   * envelope (spec: Errors), with 200 (confirmation), 403 (policy) or 500 (pipeline).
   */
  readonly recordOnFailure: boolean
  /** Set when the route does not answer the envelope (then `success` is undefined). */
  readonly raw?: ReadonlyArray<RawAnswer>
}

export interface EndpointOptions<Params, Query, Body, Success> {
  readonly summary: string
  readonly params?: Params
  readonly query?: Query
  readonly body?: Body
  readonly success?: Success
  readonly successStatuses?: ReadonlyArray<number>
  readonly recordOnFailure?: boolean
  readonly raw?: ReadonlyArray<RawAnswer>
}

export const endpoint = <
  Params extends AnySchema | undefined = undefined,
  Query extends AnySchema | undefined = undefined,
  Body extends AnySchema | undefined = undefined,
  Success extends AnySchema | undefined = undefined
>(
  group: string,
  method: EndpointMethod,
  path: string,
  options: EndpointOptions<Params, Query, Body, Success>
): Endpoint<Params, Query, Body, Success> => ({
  method,
  path,
  group,
  summary: options.summary,
  params: options.params as Params,
  query: options.query as Query,
  body: options.body as Body,
  success: options.success as Success,
  successStatuses: options.successStatuses ?? [200],
  recordOnFailure: options.recordOnFailure ?? false,
  ...(options.raw === undefined ? {} : { raw: options.raw })
})
