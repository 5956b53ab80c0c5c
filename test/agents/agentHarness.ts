/**
 * The agents core on a real database, without the gateway or a ledger: a fresh PostgreSQL database on
 * TEST_DATABASE_URL's server (the machine's, or the run's embedded one). Wallet rows are inserted directly by SQL.
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import bs58 from "bs58"
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Autonomy, DEFAULT_ALLOWED_INTENTS } from "../../schemas/agent.js"
import { Schema } from "effect"
import { AgentBreaches } from "../../src/agents/agentBreaches.js"
import { AgentRepo } from "../../src/agents/agentRepo.js"
import { AgentBudgets } from "../../src/agents/budgets.js"
import { Treasury } from "../../src/agents/treasury.js"
import { AuditLog } from "../../src/audit/auditLog.js"
import { AppConfig } from "../../src/config.js"
import { DatabaseLive } from "../../src/db/database.js"
import { createTestDatabase } from "../support/database.js"

const AgentsLayer = Layer.mergeAll(AgentBudgets.Default, AgentBreaches.Default, Treasury.Default).pipe(
  Layer.provideMerge(AgentRepo.Default),
  Layer.provideMerge(AuditLog.Default),
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.Default)
)

export type AgentsServices = Layer.Layer.Success<typeof AgentsLayer>

export interface AgentsHarness {
  readonly run: <A, E>(effect: Effect.Effect<A, E, AgentsServices>) => Promise<A>
  readonly createWallet: (tenantId?: string) => Promise<string>
  /** An agent row straight through the repo (stopped, default intents). */
  readonly createAgent: (options?: { tenantId?: string; budgetLamports?: bigint }) => Promise<{ agentId: string; walletId: string }>
  readonly stop: () => Promise<void>
}

export const startAgents = async (env: Record<string, string> = {}): Promise<AgentsHarness> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "agents-core-"))
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
  const runtime = ManagedRuntime.make(AgentsLayer.pipe(Layer.provide(Layer.setConfigProvider(provider))))
  const run = <A, E>(effect: Effect.Effect<A, E, AgentsServices>) => runtime.runPromise(effect)
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
  const createAgent = async (options: { tenantId?: string; budgetLamports?: bigint } = {}) => {
    const tenantId = options.tenantId ?? "default"
    const walletId = await createWallet(tenantId)
    const stored = await run(
      Effect.flatMap(AgentRepo, (repo) =>
        repo.insert({
          id: randomUUID(),
          tenantId,
          name: "test agent",
          walletId,
          executionMode: "autonomous",
          allowedIntents: DEFAULT_ALLOWED_INTENTS,
          allowedProtocols: undefined,
          budgetLamports: options.budgetLamports,
          autonomy: Schema.decodeUnknownSync(Autonomy)({})
        })
      )
    )
    if (stored === undefined) throw new Error("an agent without an idempotency key is always created")
    return { agentId: stored.agent.id, walletId }
  }
  return {
    run,
    createWallet,
    createAgent,
    stop: async () => {
      await runtime.dispose()
      await database.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
