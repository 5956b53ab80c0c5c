/**
 * Starts the whole service in this test process, as main.ts composes it, against a real ledger and a
 * real database (a fresh database on TEST_DATABASE_URL's server: the machine's or the run's embedded
 * one, see test/support/database.ts). Returns the gateway's base URL and a way to stop (and restart on the same data).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AppLive } from "../../src/app.js"
import { ChainEndpoints } from "../../src/chain/chainClient.js"
import { AppConfig } from "../../src/config.js"
import { createTestDatabase, type TestDatabase } from "./database.js"
import { assertMatchesContract } from "./contract.js"
import { assertLamportsAreNumbers } from "./lamportFields.js"

export interface TestKeys {
  readonly admin: string
}

export const ADMIN_KEY = "test-admin-key"

export interface ServiceOptions {
  readonly rpcUrl: string
  readonly env?: Record<string, string>
  /** Reuse the data dir and database of an earlier start (restart tests). */
  readonly reuse?: { readonly dataDir: string; readonly database: TestDatabase }
  /** A layer built on top of the service (e.g. a test actor); it may use any of the service's services. */
  readonly extraLayer?: Layer.Layer<never, unknown, Layer.Layer.Success<typeof AppLive> | AppConfig>
}

export interface RunningService {
  readonly baseUrl: string
  readonly dataDir: string
  readonly database: TestDatabase
  /** The service's runtime: run an Effect against its services (StageEvents, SqlClient, ...). */
  readonly runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<typeof AppLive> | AppConfig, unknown>
  /** Stops the service; `keepData` leaves the data dir and database for a restart. */
  readonly stop: (options?: { keepData?: boolean }) => Promise<void>
}

export const startService = async (options: ServiceOptions): Promise<RunningService> => {
  const dataDir = options.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "custody-test-"))
  const database = options.reuse?.database ?? (await createTestDatabase())
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    API_GATEWAY_PORT: "0",
    API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all`,
    WALLET_KEY_ENCRYPTION_SECRET: "test-key-encryption-secret",
    // Tests poll hard; the rate limit has its own test with its own setting.
    API_GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000",
    // Tests send many missing and unknown keys on purpose; the per-address limit has its own test.
    API_GATEWAY_AUTH_FAILURES_PER_MINUTE: "1000000",
    // Parallel test files each run services on one PostgreSQL: small pools stay under its max_connections.
    DATABASE_POOL_SIZE: "5",
    TX_PIPELINE_WORKERS: "8",
    // Services of a test file share one process and heap: no idle collections of it unless a test asks (idleMemoryReducer.test.ts).
    IDLE_MEMORY_REDUCE_AFTER_MS: "0",
    CHAIN_RPC_URL: options.rpcUrl,
    DATABASE_URL: database.url,
    ...options.env
  }
  const provider = ConfigProvider.fromMap(new Map(Object.entries(env)))
  // As ChainEndpointsLive: CHAIN_RPC_URL first, then CHAIN_RPC_POOL_URLS.
  const poolUrls = (env.CHAIN_RPC_POOL_URLS ?? "").split(",").map((u) => u.trim()).filter((u) => u !== "")
  const app = options.extraLayer === undefined ? AppLive : options.extraLayer.pipe(Layer.provideMerge(AppLive))
  const layer = app.pipe(
    Layer.provide(Layer.succeed(ChainEndpoints, { urls: [env.CHAIN_RPC_URL ?? options.rpcUrl, ...poolUrls] })),
    Layer.provideMerge(AppConfig.Default),
    Layer.provide(Layer.setConfigProvider(provider))
  )
  const runtime = ManagedRuntime.make(layer)
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    dataDir,
    database,
    runtime,
    stop: async (stopOptions) => {
      await runtime.dispose()
      if (stopOptions?.keepData !== true) {
        await database.drop()
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    }
  }
}

/**
 * The answer envelope every route gives (SPEC "Errors"). `D` types `data`; left out it is `unknown`, so a
 * test reads data only through the typed client (test/support/client.ts) or by naming the answer
 * (docs/decisions/testing.md; test/support/typedCalls.test.ts keeps it so).
 */
export interface Envelope<D = unknown> {
  readonly status: "success" | "failure"
  readonly errorCode: string | null
  readonly failedAt: string | null
  readonly stage: string
  readonly traceId: string
  readonly data: D
  readonly error?: string
  readonly errorMessage?: string
}

export interface ApiAnswer<D = unknown> {
  /** The HTTP status. */
  readonly status: number
  readonly headers: Headers
  readonly body: Envelope<D>
}

/**
 * The raw call under the typed client: fetch + JSON with the admin key unless headers say otherwise,
 * every answer checked against the OpenAPI document. Tests call declared routes through `makeClient()`;
 * they use `api()` directly for what the declarations refuse to send (a refused body, a raw query, a
 * method the route lacks) or for routes not declared yet, naming the data they read:
 * `api<WireDataOf<typeof AuditApi.list>>(...)`, `api<DefiPools>(...)` (test/support/undeclaredAnswers.ts).
 */
export const api = async <D = unknown>(
  baseUrl: string,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = { "x-api-key": ADMIN_KEY }
): Promise<ApiAnswer<D>> => {
  const response = await fetch(baseUrl + urlPath, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const json = (await response.json()) as Envelope<D>
  assertLamportsAreNumbers(json, `${method} ${urlPath}`)
  await assertMatchesContract(baseUrl, method, urlPath, response.status, json)
  return { status: response.status, headers: response.headers, body: json }
}
