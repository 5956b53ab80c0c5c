/**
 * The create path's statement: checks the wallet (and its tenant), inserts the transaction row, its
 * outbox job and the `transaction.created` audit event. One statement is atomic, so the row and its
 * job exist together or not at all. A job whose create reserved one of this process's idle workers is inserted
 * already claimed under the reservation's lease and comes back with its run's context (jobHandoff.ts).
 * Concurrent creates share the statement (the caller batches them),
 * so under load one round trip and one commit carry many. A conflicting insert (the idempotency key
 * was used before) inserts nothing; the caller then reads the winner.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { newRowId } from "../db/rowIds.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"
import { type ClaimedJob, riskBoundsOf } from "./outbox.js"
import { runContextOf } from "./runContext.js"
import { TransactionRow } from "./transactionRow.js"

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
  /** Insert only when no agent acts through the wallet (else the outcome is Governed and nothing is written). */
  readonly ungovernedOnly: boolean
  /** The lease under which the job is claimed at its insert, for this process's workers (null: a pending job). */
  readonly leaseId: string | null
}

export type InsertOutcome =
  | { readonly _tag: "WalletNotFound" }
  | { readonly _tag: "Governed" }
  | { readonly _tag: "WalletNotActive"; readonly status: string }
  | { readonly _tag: "AgentNotFound" }
  | { readonly _tag: "Frozen"; readonly freezeId: string }
  | { readonly _tag: "Conflict"; readonly tenantId: string }
  /** `handed`: its job, claimed at the insert under the create's lease (undefined: a pending job). */
  | { readonly _tag: "Inserted"; readonly row: TransactionRow; readonly handed?: ClaimedJob }

/** What the statement found of the request's wallet, agent and freezes. */
const checkedFields = {
  batch_ord: Schema.Number,
  wallet_tenant: Schema.NullOr(Schema.String),
  wallet_status: Schema.NullOr(Schema.String),
  agent_ok: Schema.NullOr(Schema.Boolean),
  governed: Schema.NullOr(Schema.Boolean),
  freeze_id: Schema.NullOr(Schema.String),
  notified: Schema.optional(Schema.Unknown)
}
/** The job claimed at the insert and its run's context (as a claim reads them), or nulls. */
const handedFields = {
  job_id: Schema.NullOr(Schema.String),
  job_attempts: Schema.NullOr(Schema.Number),
  job_lease_id: Schema.NullOr(Schema.String),
  job_lease_expires_at: Schema.NullOr(Timestamp),
  job_created_at: Schema.NullOr(Timestamp),
  wallet_public_key: Schema.NullOr(Schema.String),
  delta_variance_bps: Schema.Unknown,
  max_quote_age_seconds: Schema.Unknown
}
/** One row per request: the inserted transaction's columns, or nulls where it was not inserted. */
const ResultRow = Schema.Union(
  Schema.Struct({ ...TransactionRow.fields, ...checkedFields, ...handedFields }),
  Schema.Struct({ ...checkedFields, id: Schema.Null })
)
type ResultRow = typeof ResultRow.Type

const outcomeOf = (result: ResultRow | undefined): InsertOutcome => {
  if (result === undefined || result.wallet_status === null) return { _tag: "WalletNotFound" }
  if (result.governed === true) return { _tag: "Governed" }
  if (result.wallet_status !== "active") return { _tag: "WalletNotActive", status: result.wallet_status }
  if (result.agent_ok !== true) return { _tag: "AgentNotFound" }
  if (result.freeze_id !== null) return { _tag: "Frozen", freezeId: result.freeze_id }
  if (result.id === null) return { _tag: "Conflict", tenantId: result.wallet_tenant ?? "" }
  const {
    batch_ord: _ord, wallet_tenant: _tenant, wallet_status: _status, agent_ok: _agent, governed: _governed, freeze_id: _freeze, notified: _notified,
    job_id, job_attempts, job_lease_id, job_lease_expires_at, job_created_at, wallet_public_key, delta_variance_bps, max_quote_age_seconds, ...row
  } = result
  if (job_id === null || job_attempts === null || job_lease_id === null || job_created_at === null || wallet_public_key === null) return { _tag: "Inserted", row }
  const handed: ClaimedJob = {
    id: job_id, tx_id: row.id, action: "execute", status: "processing", attempts: job_attempts, lease_id: job_lease_id,
    lease_expires_at: job_lease_expires_at, created_at: job_created_at, claimedAtInsert: true,
    run: runContextOf({ ...row, wallet_public_key, delta_variance_bps, max_quote_age_seconds })
  }
  return { _tag: "Inserted", row, handed }
}

/**
 * Inserts the transactions of `batch` in one statement (each still all-or-nothing with its job and
 * audit event) and answers each in order. The jobs' insert also queues one NOTIFY on
 * `notify.channel` for other processes' workers, its payload `notify.payloadPrefix` and the number of
 * new pending jobs (delivered at commit, free of a round trip of its own; outbox.ts). A job claimed at
 * the insert holds its lease for `leaseMs`.
 */
export const insertTransactionsWithJobs = (
  sql: SqlClient.SqlClient, batch: ReadonlyArray<NewTransaction>, notify: { readonly channel: string; readonly payloadPrefix: string }, leaseMs: number
) => {
  const at = new Date().toISOString()
  const input = batch.map((tx, ord) => ({
    ord, id: tx.id, wallet_id: tx.walletId, wallet_tenant: tx.walletTenant, agent_id: tx.agentId, type: tx.type, protocol: tx.protocol,
    intent: tx.intent, request: tx.request, request_hash: tx.requestHash, gasless: tx.gasless, require_approval: tx.requireApproval,
    idempotency_key: tx.idempotencyKey, trace_id: tx.traceId, ungoverned_only: tx.ungovernedOnly, lease_id: tx.leaseId, job_id: newRowId(), audit_id: newRowId(),
    history: [{ status: "pending", stage: "validation", at, message: "accepted" }],
    audit_message: `transaction ${tx.id} created`, audit_metadata: { type: tx.type, protocol: tx.protocol }
  }))
  // A CTE without data changes runs only when referenced: the final SELECT references `job` for the NOTIFY.
  // A handed job's run context, as a claim reads it (only for rows whose job was claimed here).
  const riskBounds = riskBoundsOf(sql, "inserted", sql`handed.id IS NOT NULL`)
  const notified = sql`, (SELECT pg_notify(${notify.channel}, ${notify.payloadPrefix} || count(*)::text) FROM job WHERE lease_id IS NULL HAVING count(*) > 0) AS notified`
  return sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS v(
        ord int, id uuid, wallet_id uuid, wallet_tenant text, agent_id uuid, type text, protocol text, intent jsonb,
        request jsonb, request_hash text, gasless boolean, require_approval boolean, idempotency_key text, trace_id text,
        ungoverned_only boolean, lease_id uuid, job_id uuid, audit_id uuid, history jsonb, audit_message text, audit_metadata jsonb)
    ), checked AS (
      -- The wallet (of the caller's tenant, when bound), and an agentId must name an agent acting through this wallet.
      SELECT v.*, w.tenant_id AS tenant, w.status AS wallet_status, w.public_key,
        (v.agent_id IS NULL OR EXISTS (SELECT 1 FROM agents a WHERE a.id = v.agent_id AND a.tenant_id = w.tenant_id AND a.wallet_id = w.id)) AS agent_ok,
        -- A spend that names no agent is plain only when no agent acts through the wallet (walletSpend.ts takes it otherwise).
        (v.ungoverned_only AND EXISTS (SELECT 1 FROM agents a WHERE a.wallet_id = w.id)) AS governed,
        -- An operator's freeze of the tenant, the wallet or the agent refuses the request (docs/decisions/freeze.md).
        (SELECT f.id FROM signing_freezes f WHERE f.tenant_id = w.tenant_id AND f.unfrozen_at IS NULL AND (f.scope = 'tenant'
          OR (f.scope = 'wallet' AND f.target_id = w.id::text) OR (f.scope = 'agent' AND f.target_id = v.agent_id::text))
          ORDER BY f.frozen_at LIMIT 1) AS freeze_id
      FROM input v JOIN wallets w ON w.id = v.wallet_id AND (v.wallet_tenant IS NULL OR w.tenant_id = v.wallet_tenant)
    ), inserted AS (
      INSERT INTO transactions (id, tenant_id, wallet_id, agent_id, type, protocol, intent, request, request_hash, gasless,
        require_approval, idempotency_key, status, stage, history, trace_id, attempts)
      SELECT id, tenant, wallet_id, agent_id, type, protocol, intent, request, request_hash, gasless,
        require_approval, idempotency_key, 'pending', 'validation', history, trace_id, CASE WHEN lease_id IS NULL THEN 0 ELSE 1 END
      FROM checked WHERE wallet_status = 'active' AND agent_ok AND NOT governed AND freeze_id IS NULL
      ORDER BY ord
      ON CONFLICT DO NOTHING
      RETURNING *
    ), job AS (
      INSERT INTO outbox_jobs (id, tx_id, action, status, attempts, lease_id, lease_expires_at)
      SELECT c.job_id, i.id, 'execute', CASE WHEN c.lease_id IS NULL THEN 'pending' ELSE 'processing' END,
        CASE WHEN c.lease_id IS NULL THEN 0 ELSE 1 END, c.lease_id, now() + CASE WHEN c.lease_id IS NULL THEN NULL ELSE ${`${leaseMs} milliseconds`}::interval END
      FROM inserted i JOIN checked c ON c.id = i.id ORDER BY c.ord
      RETURNING id, tx_id, attempts, lease_id, lease_expires_at, created_at
    ), audited AS (
      INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id, protocol, entity_type, category, trace_id)
      SELECT c.audit_id, i.tenant_id, 'transaction.created', c.audit_message, c.audit_metadata, i.id, i.wallet_id, i.agent_id, i.protocol,
        'transaction', 'pipeline', c.trace_id
      FROM inserted i JOIN checked c ON c.id = i.id ORDER BY c.ord
    )
    SELECT v.ord AS batch_ord, inserted.*, checked.tenant AS wallet_tenant, checked.wallet_status, checked.agent_ok, checked.governed, checked.freeze_id,
      handed.id AS job_id, handed.attempts AS job_attempts, handed.lease_id AS job_lease_id, handed.lease_expires_at AS job_lease_expires_at,
      handed.created_at AS job_created_at, checked.public_key AS wallet_public_key, ${riskBounds.columns}${notified}
    FROM input v LEFT JOIN checked ON checked.ord = v.ord LEFT JOIN inserted ON inserted.id = v.id
      LEFT JOIN job handed ON handed.tx_id = inserted.id AND handed.lease_id IS NOT NULL
      ${riskBounds.joins}
  `.pipe(
    decodeRows("transactions", ResultRow),
    Effect.map((rows) => {
      const byOrd = new Map(rows.map((row) => [row.batch_ord, row]))
      return batch.map((_tx, ord) => outcomeOf(byOrd.get(ord)))
    }),
    Effect.orDie
  )
}
