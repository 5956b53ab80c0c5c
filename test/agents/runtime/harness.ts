/**
 * The agent runtime's tests: a real ledger and the whole service (real database), agents created and
 * started over HTTP, each test in its own tenant (so {{knownWallet0}} is that test's first wallet).
 * `inService` runs an Effect with the service's services, e.g. a scheduler under a test's TestClock.
 */
import { SqlClient } from "@effect/sql"
import { Connection, PublicKey } from "@solana/web3.js"
import { Effect, type Layer } from "effect"
import type { AppLive } from "../../../src/app.js"
import type { AppConfig } from "../../../src/config.js"
import { makeClient } from "../../support/client.js"
import { type RunningService } from "../../support/service.js"
import { createWallet } from "../../support/transactions.js"
import { sleep, waitFor } from "../../support/wait.js"

export type ServiceServices = Layer.Layer.Success<typeof AppLive> | AppConfig

/** API keys: admin plus one key per tenant t0..t9 (all scopes). */
export const TENANT_KEYS = ["test-admin-key:*:all", ...Array.from({ length: 10 }, (_, i) => `k-t${i}:tenant-${i}:all`)].join(";")
export const tenant = (index: number) => ({ "x-api-key": `k-t${index}` })

export const sleepReal = sleep

/** The shared poll (test/support/wait.ts) with this folder's longer default wait. */
export const waitUntil = (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => waitFor(what, check, timeoutMs)

export const inService = <A, E>(service: RunningService, effect: Effect.Effect<A, E, ServiceServices>) => service.runtime.runPromise(effect)

/** The service's context, to provide to an Effect running in another runtime (a test's TestClock). */
export const serviceContext = (service: RunningService) =>
  Effect.promise(() => service.runtime.runtime()).pipe(Effect.map((runtime) => runtime.context))

export const createAgent = async (service: RunningService, headers: Record<string, string>, body: Record<string, unknown>, start = true) => {
  const created = await makeClient(service.baseUrl, headers).agents.create({ body: { name: "runtime-test", allowedIntents: ["transfer_sol", "query_balance"], ...body } })
  if (created.status !== 201) throw new Error(`agent create failed: ${JSON.stringify(created.body)}`)
  if (start) {
    const started = await makeClient(service.baseUrl, headers).agents.start({ params: { agentId: created.body.data.id }, body: {} })
    if (started.status !== 200) throw new Error(`agent start failed: ${JSON.stringify(started.body)}`)
  }
  return created.body.data as { id: string; walletId: string }
}

export const fundedWallet = (service: RunningService, headers: Record<string, string>, lamports = 2_000_000_000) =>
  createWallet(service.baseUrl, lamports, headers)

export interface AgentTx {
  readonly id: string
  readonly status: string
  readonly type: string
  readonly idempotency_key: string | null
}

/** The agent's transactions, oldest first (SQL: what the pipeline recorded). */
export const agentTransactions = (service: RunningService, agentId: string) =>
  inService(
    service,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<AgentTx>`SELECT id, status, type, idempotency_key FROM transactions WHERE agent_id = ${agentId} ORDER BY created_at, id`
    ).pipe(Effect.orDie)
  )

export const agentActions = (service: RunningService, agentId: string) =>
  inService(
    service,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ source_id: string; run: number; kind: string; status: string; error: string | null }>`
        SELECT source_id, run, kind, status, error FROM agent_actions WHERE agent_id = ${agentId} ORDER BY at, run
      `
    ).pipe(Effect.orDie)
  )

/** Waits until none of the agent's transactions is still in flight. */
export const waitAgentSettled = (service: RunningService, agentId: string) =>
  waitUntil(`transactions of agent ${agentId} to settle`, async () =>
    (await agentTransactions(service, agentId)).every((tx) => ["confirmed", "failed", "approval_gate"].includes(tx.status))
  )

export const ledgerBalance = (rpcUrl: string, publicKey: string) => new Connection(rpcUrl, "confirmed").getBalance(new PublicKey(publicKey))

export const autonomyState = async (service: RunningService, agentId: string, headers: Record<string, string>) =>
  (await makeClient(service.baseUrl, headers).agents.autonomyState({ params: { agentId } })).body.data

export const agentRecord = async (service: RunningService, agentId: string, headers: Record<string, string>) =>
  (await makeClient(service.baseUrl, headers).agents.get({ params: { agentId } })).body.data as {
    status: string
    pausedReason?: string
  }

/** The agent's audit events of one type (SQL), oldest first. */
export const agentEvents = (service: RunningService, agentId: string, eventType: string) =>
  inService(
    service,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ message: string; metadata_text: string }>`
        SELECT message, metadata::text AS metadata_text FROM audit_events WHERE agent_id = ${agentId} AND event_type = ${eventType} ORDER BY seq
      `
    ).pipe(
      Effect.map((rows) => rows.map((row) => ({ message: row.message, metadata: JSON.parse(row.metadata_text) as Record<string, unknown> }))),
      Effect.orDie
    )
  )
