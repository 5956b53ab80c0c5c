/**
 * The policy engine's fast path, for a wallet with nothing to check against shared state: no active
 * policy, no protocol risk config for the intent's protocol, no portfolio risk controls, and no
 * decision recorded yet for the transaction. Then no daily spend or rate count is read, so there is
 * nothing to serialise under the wallet's lock: the decision (made by the same pure code as the locked
 * path, before anything is read), its effects (the day's spend, counted so a daily limit added later
 * sees it), and the `policy.evaluated` audit event are written in ONE statement that first checks the
 * wallet is indeed unconstrained (one round trip, no SQL transaction). Anything else takes the locked path.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { PolicyDecision } from "../../schemas/policy.js"
import type { PolicyEffects } from "./evaluationState.js"

export interface UnconstrainedTarget {
  readonly txId: string
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly protocol: string
  readonly traceId?: string | undefined
}

/**
 * Records the decision, its spend and the audit event in one statement when the wallet has no policy,
 * protocol config or portfolio controls; false when it has one, or a decision for the transaction was
 * recorded already (the caller then takes the locked path). Spend only: an unconstrained wallet has no
 * rate_limit rule, hence no rate events.
 */
export const recordIfUnconstrained = (
  sql: SqlClient.SqlClient,
  target: UnconstrainedTarget,
  decision: PolicyDecision,
  effects: PolicyEffects | null,
  approvalSpendLamports: bigint | null
) => {
  const lamports = (effects?.addDailySpendLamports ?? 0n).toString()
  const utcDay = effects?.utcDay ?? ""
  const metadata = { txId: target.txId, source: "transaction", decision: decision.decision, reasons: decision.reasons, riskTier: decision.riskTier }
  const message = `policy decision ${decision.decision}${decision.reasons.length > 0 ? `: ${decision.reasons[0]}` : ""}`
  return sql<{ recorded: string }>`
    WITH constrained AS (
      SELECT EXISTS (SELECT 1 FROM policies WHERE wallet_id = ${target.walletId} AND tenant_id = ${target.tenantId} AND active)
        OR EXISTS (SELECT 1 FROM protocol_risk_configs WHERE tenant_id = ${target.tenantId} AND protocol = ${target.protocol})
        OR EXISTS (SELECT 1 FROM portfolio_risk_controls WHERE wallet_id = ${target.walletId} AND tenant_id = ${target.tenantId})
        AS yes
    ), decided AS (
      INSERT INTO policy_decisions (tx_id, tenant_id, wallet_id, decision, approval_spend_lamports)
      SELECT ${target.txId}, ${target.tenantId}, ${target.walletId}, ${JSON.stringify(decision)}::jsonb,
        ${approvalSpendLamports === null ? null : approvalSpendLamports.toString()}::numeric
      FROM constrained WHERE NOT constrained.yes
      ON CONFLICT (tx_id) DO NOTHING
      RETURNING tx_id
    ), entry AS (
      INSERT INTO policy_spend_entries (tx_id, wallet_id, utc_day, lamports)
      SELECT tx_id, ${target.walletId}, ${utcDay}, ${lamports}::numeric FROM decided WHERE ${lamports}::numeric > 0
      ON CONFLICT (tx_id) DO NOTHING
      RETURNING lamports
    ), counted AS (
      INSERT INTO policy_daily_spend (wallet_id, utc_day, spent_lamports)
      SELECT ${target.walletId}, ${utcDay}, lamports FROM entry
      ON CONFLICT (wallet_id, utc_day) DO UPDATE SET spent_lamports = policy_daily_spend.spent_lamports + EXCLUDED.spent_lamports
    ), audited AS (
      INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id, protocol, entity_type, category, trace_id)
      SELECT ${randomUUID()}, ${target.tenantId}, 'policy.evaluated', ${message}, ${JSON.stringify(metadata)}::jsonb,
        tx_id, ${target.walletId}, ${target.agentId}, ${target.protocol}, 'policy', 'policy', ${target.traceId ?? null}
      FROM decided
    )
    SELECT count(*)::text AS recorded FROM decided
  `.pipe(Effect.map((rows) => rows[0]?.recorded === "1"))
}
