/**
 * The policy engine's fast path, for a wallet with nothing to check against shared state: no active
 * policy, no protocol risk config for the intent's protocol (its tenant's or the deployment-wide one), no portfolio risk controls, and no
 * decision recorded yet for the transaction. Then no daily spend or rate count is read, so there is
 * nothing to serialise under the wallet's lock: the decision (made by the same pure code as the locked
 * path, before anything is read), its effects (the day's spend, counted so a daily limit added later
 * sees it), and the `policy.evaluated` audit event are written in ONE statement that first checks the
 * wallet is indeed unconstrained (one round trip, no SQL transaction; concurrent decisions share the
 * statement). Anything else takes the locked path.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { newRowId } from "../db/rowIds.js"
import type { PolicyDecision } from "../../schemas/policy.js"
import type { PolicyEffects } from "./evaluationState.js"
import { decodeRows } from "../db/rowDecoding.js"

export interface UnconstrainedTarget {
  readonly txId: string
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly protocol: string
  readonly traceId?: string | undefined
}

/** One decision to record if its wallet is unconstrained. */
export interface UnconstrainedRecord {
  readonly target: UnconstrainedTarget
  readonly decision: PolicyDecision
  readonly effects: PolicyEffects | null
  readonly approvalSpendLamports: bigint | null
}

/** Whether the decision of the input at `ord` was recorded. */
const RecordedRow = Schema.Struct({ ord: Schema.Number, recorded: Schema.Boolean })

/**
 * Records each decision, its spend and its audit event, in one statement for the whole batch, when the
 * wallet has no policy, protocol config or portfolio controls; false for one whose wallet has one, or
 * whose transaction has a decision already (the caller then takes the locked path). Spend only: an
 * unconstrained wallet has no rate_limit rule, hence no rate events. The day's spend rows are updated
 * in wallet order, so two statements never wait for each other's rows in a cycle.
 */
export const recordIfUnconstrained = (sql: SqlClient.SqlClient, records: ReadonlyArray<UnconstrainedRecord>) => {
  const input = records.map(({ target, decision, effects, approvalSpendLamports }, ord) => ({
    ord,
    tx_id: target.txId,
    tenant_id: target.tenantId,
    wallet_id: target.walletId,
    agent_id: target.agentId,
    protocol: target.protocol,
    trace_id: target.traceId ?? null,
    decision,
    approval_spend: approvalSpendLamports === null ? null : approvalSpendLamports.toString(),
    lamports: (effects?.addDailySpendLamports ?? 0n).toString(),
    utc_day: effects?.utcDay ?? "",
    audit_id: newRowId(),
    message: `policy decision ${decision.decision}${decision.reasons.length > 0 ? `: ${decision.reasons[0]}` : ""}`,
    metadata: { txId: target.txId, source: "transaction", decision: decision.decision, reasons: decision.reasons, riskTier: decision.riskTier }
  }))
  return sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS v(
        ord int, tx_id uuid, tenant_id text, wallet_id uuid, agent_id uuid, protocol text, trace_id text, decision jsonb,
        approval_spend numeric, lamports numeric, utc_day text, audit_id uuid, message text, metadata jsonb)
    ), unconstrained AS (
      SELECT v.* FROM input v
      WHERE NOT EXISTS (SELECT 1 FROM policies p WHERE p.wallet_id = v.wallet_id AND p.tenant_id = v.tenant_id AND (p.active OR p.shadow))
        AND NOT EXISTS (SELECT 1 FROM protocol_risk_configs r WHERE r.tenant_id IN (v.tenant_id, '*') AND r.protocol = v.protocol)
        AND NOT EXISTS (SELECT 1 FROM portfolio_risk_controls c WHERE c.wallet_id = v.wallet_id AND c.tenant_id = v.tenant_id)
        AND NOT EXISTS (SELECT 1 FROM value_limits l WHERE (l.scope = 'wallet' AND l.target_id = v.wallet_id) OR (l.scope = 'agent' AND l.target_id = v.agent_id))
    ), decided AS (
      INSERT INTO policy_decisions (tx_id, tenant_id, wallet_id, decision, approval_spend_lamports)
      SELECT tx_id, tenant_id, wallet_id, decision, approval_spend FROM unconstrained ORDER BY ord
      ON CONFLICT (tx_id) DO NOTHING
      RETURNING tx_id
    ), entry AS (
      INSERT INTO policy_spend_entries (tx_id, wallet_id, utc_day, lamports)
      SELECT u.tx_id, u.wallet_id, u.utc_day, u.lamports FROM unconstrained u JOIN decided d ON d.tx_id = u.tx_id WHERE u.lamports > 0
      ON CONFLICT (tx_id) DO NOTHING
      RETURNING wallet_id, utc_day, lamports
    ), counted AS (
      INSERT INTO policy_daily_spend (wallet_id, utc_day, spent_lamports)
      SELECT wallet_id, utc_day, sum(lamports) FROM entry GROUP BY wallet_id, utc_day ORDER BY wallet_id, utc_day
      ON CONFLICT (wallet_id, utc_day) DO UPDATE SET spent_lamports = policy_daily_spend.spent_lamports + EXCLUDED.spent_lamports
    ), audited AS (
      INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id, protocol, entity_type, category, trace_id)
      SELECT u.audit_id, u.tenant_id, 'policy.evaluated', u.message, u.metadata, u.tx_id, u.wallet_id, u.agent_id, u.protocol, 'policy', 'policy', u.trace_id
      FROM unconstrained u JOIN decided d ON d.tx_id = u.tx_id ORDER BY u.ord
    )
    SELECT v.ord, d.tx_id IS NOT NULL AS recorded FROM input v LEFT JOIN decided d ON d.tx_id = v.tx_id
  `.pipe(
    decodeRows("policy_decisions", RecordedRow),
    Effect.map((rows) => {
      const recorded = new Map(rows.map((row) => [row.ord, row.recorded]))
      return records.map((_record, ord) => recorded.get(ord) === true)
    })
  )
}
