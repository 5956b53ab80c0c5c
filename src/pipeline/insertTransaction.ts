/**
 * The create path's single statement: checks the wallet (and its tenant), inserts the transaction row,
 * its outbox job and the `transaction.created` audit event. One statement is atomic, so the row and
 * its job exist together or not at all, and a create costs one round trip to the database.
 * A conflicting insert (the idempotency key was used before) inserts nothing; the caller then reads
 * the winner.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { TransactionRow } from "./transactionRow.js"

export interface NewTransaction {
  readonly id: string
  readonly walletId: string
  /** null: any tenant (an unbound key without x-tenant-id); otherwise the wallet must be this tenant's. */
  readonly walletTenant: string | null
  readonly agentId: string | null
  readonly type: string
  readonly protocol: string
  readonly intent: unknown
  readonly request: unknown
  readonly requestHash: string
  readonly gasless: boolean
  readonly requireApproval: boolean
  readonly idempotencyKey: string | null
  readonly traceId: string | null
}

export type InsertOutcome =
  | { readonly _tag: "WalletNotFound" }
  | { readonly _tag: "WalletNotActive"; readonly status: string }
  | { readonly _tag: "AgentNotFound" }
  | { readonly _tag: "Conflict"; readonly tenantId: string }
  | { readonly _tag: "Inserted"; readonly row: TransactionRow }

type ResultRow = Partial<TransactionRow> & { readonly wallet_tenant: string; readonly wallet_status: string; readonly agent_ok: boolean; readonly notified?: unknown }

/**
 * `notifyChannel`: on PostgreSQL the job's insert also queues a NOTIFY for other processes' workers
 * (delivered at commit, free of a round trip of its own); undefined on the embedded PGlite.
 */
export const insertTransactionWithJob = (sql: SqlClient.SqlClient, tx: NewTransaction, notifyChannel: string | undefined) => {
  const at = new Date().toISOString()
  const history = JSON.stringify([{ status: "pending", stage: "validation", at, message: "accepted" }])
  // A CTE without data changes runs only when referenced: the final SELECT references `job` for the NOTIFY.
  const notify = notifyChannel === undefined ? sql`` : sql`, (SELECT count(pg_notify(${notifyChannel}, '')) FROM job) AS notified`
  return sql<ResultRow>`
    WITH wallet AS (
      -- An agentId must name an agent of the wallet's tenant.
      SELECT tenant_id, status,
        (${tx.agentId}::uuid IS NULL OR EXISTS (SELECT 1 FROM agents WHERE agents.id = ${tx.agentId}::uuid AND agents.tenant_id = wallets.tenant_id)) AS agent_ok
      FROM wallets
      WHERE id = ${tx.walletId} ${tx.walletTenant === null ? sql`` : sql`AND tenant_id = ${tx.walletTenant}`}
    ), inserted AS (
      INSERT INTO transactions (id, tenant_id, wallet_id, agent_id, type, protocol, intent, request, request_hash, gasless,
        require_approval, idempotency_key, status, stage, history)
      SELECT ${tx.id}, wallet.tenant_id, ${tx.walletId}, ${tx.agentId}, ${tx.type}, ${tx.protocol},
        ${JSON.stringify(tx.intent)}::jsonb, ${JSON.stringify(tx.request)}::jsonb, ${tx.requestHash}, ${tx.gasless},
        ${tx.requireApproval}, ${tx.idempotencyKey}, 'pending', 'validation', ${history}::jsonb
      FROM wallet WHERE wallet.status = 'active' AND wallet.agent_ok
      ON CONFLICT DO NOTHING
      RETURNING *
    ), job AS (
      INSERT INTO outbox_jobs (id, tx_id, action, status) SELECT ${randomUUID()}, id, 'execute', 'pending' FROM inserted RETURNING id
    ), audited AS (
      INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id, protocol, entity_type, category, trace_id)
      SELECT ${randomUUID()}, tenant_id, 'transaction.created', ${`transaction ${tx.id} created`},
        ${JSON.stringify({ type: tx.type, protocol: tx.protocol })}::jsonb, id, wallet_id, agent_id, protocol, 'transaction', 'pipeline', ${tx.traceId}
      FROM inserted
    )
    SELECT inserted.*, wallet.tenant_id AS wallet_tenant, wallet.status AS wallet_status, wallet.agent_ok${notify}
    FROM wallet LEFT JOIN inserted ON true
  `.pipe(
    Effect.map(([result]): InsertOutcome => {
      if (result === undefined) return { _tag: "WalletNotFound" }
      if (result.wallet_status !== "active") return { _tag: "WalletNotActive", status: result.wallet_status }
      if (!result.agent_ok) return { _tag: "AgentNotFound" }
      if (result.id === undefined || result.id === null) return { _tag: "Conflict", tenantId: result.wallet_tenant }
      const { wallet_tenant: _tenant, wallet_status: _status, agent_ok: _agent, notified: _notified, ...row } = result
      return { _tag: "Inserted", row: row as TransactionRow }
    }),
    Effect.orDie
  )
}
