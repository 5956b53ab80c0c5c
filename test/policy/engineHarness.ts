/**
 * The policy engine on a real database, without the gateway: a fresh PostgreSQL database on
 * TEST_DATABASE_URL's server (the machine's, or the run's embedded one). Wallet rows are inserted directly by SQL.
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import bs58 from "bs58"
import { Schema } from "effect"
import { PolicyRules, type PolicyRuleEncoded } from "../../schemas/policy.js"
import { AuditLog } from "../../src/audit/auditLog.js"
import { ChainClient, ChainEndpoints } from "../../src/chain/chainClient.js"
import { AppConfig } from "../../src/config.js"
import { DatabaseLive } from "../../src/db/database.js"
import { PolicyEngine } from "../../src/policy/policyEngine.js"
import { PolicyRepo } from "../../src/policy/policyRepo.js"
import { PolicyService } from "../../src/policy/policyService.js"
import { RiskConfigRepo } from "../../src/risk/riskConfigRepo.js"
import { createTestDatabase } from "../support/database.js"

const layerWith = (rpcUrl: string) => Layer.mergeAll(PolicyEngine.Default, PolicyService.Default, PolicyRepo.Default, RiskConfigRepo.Default).pipe(
  Layer.provideMerge(AuditLog.Default),
  // The engine values a portfolio over JSON-RPC (only for a wallet with a portfolio limit).
  Layer.provideMerge(ChainClient.Default.pipe(Layer.provide(Layer.succeed(ChainEndpoints, { urls: [rpcUrl] })))),
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.Default)
)

type EngineLayer = ReturnType<typeof layerWith>

/** Where no test starts a ledger: nothing listens there, so a portfolio valuation fails closed. */
const NO_LEDGER = "http://127.0.0.1:9"

export type EngineRuntime = ManagedRuntime.ManagedRuntime<Layer.Layer.Success<EngineLayer>, unknown>

export interface EngineHarness {
  readonly runtime: EngineRuntime
  readonly run: <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<EngineLayer>>) => Promise<A>
  readonly createWallet: (tenantId?: string) => Promise<string>
  readonly createPolicy: (walletId: string, rules: ReadonlyArray<PolicyRuleEncoded>, tenantId?: string) => Promise<string>
  readonly stop: () => Promise<void>
}

/** `rpcUrl`: a ledger for the portfolio valuation (test/support/ledger.ts), when a test gives a wallet portfolio limits. */
export const startEngine = async (env: Record<string, string> = {}, rpcUrl: string = NO_LEDGER): Promise<EngineHarness> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "policy-engine-"))
  const database = await createTestDatabase()
  const provider = ConfigProvider.fromMap(
    new Map(
      Object.entries({
        DATA_DIR: dataDir,
        API_GATEWAY_API_KEYS: "k:*:all",
        WALLET_KEY_ENCRYPTION_SECRET: "test-secret",
        DATABASE_URL: database.url,
        ...env
      })
    )
  )
  const runtime: EngineRuntime = ManagedRuntime.make(layerWith(rpcUrl).pipe(Layer.provide(Layer.setConfigProvider(provider))))
  const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<EngineLayer>>) => runtime.runPromise(effect)
  const createWallet = (tenantId = "default") =>
    run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const id = randomUUID()
        yield* sql`INSERT INTO wallets (id, tenant_id, public_key, provider, key_backend)
          VALUES (${id}, ${tenantId}, ${bs58.encode(randomBytes(32))}, 'local-dev', 'memory')`
        return id
      })
    )
  const createPolicy = (walletId: string, rules: ReadonlyArray<PolicyRuleEncoded>, tenantId = "default") =>
    run(
      Effect.gen(function* () {
        const decoded = yield* Schema.decodeUnknown(PolicyRules)(rules)
        const stored = yield* (yield* PolicyRepo).create({
          id: randomUUID(),
          tenantId,
          walletId,
          name: "test policy",
          active: true,
          rules: Schema.encodeSync(PolicyRules)(decoded)
        })
        if (stored === undefined) throw new Error("a policy without an idempotency key is always created")
        return stored.policy.id
      })
    )
  return {
    runtime,
    run,
    createWallet,
    createPolicy,
    stop: async () => {
      await runtime.dispose()
      await database.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
