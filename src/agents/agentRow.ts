/** An agents row as read from SQL and its conversion to the Agent record (numerics arrive as strings). */
import { Schema } from "effect"
import { type Agent, AgentStatus, Autonomy, ExecutionMode } from "../../schemas/agent.js"
import type { TransactionType } from "../../schemas/intent.js"
import type { ProtocolId } from "../../schemas/protocol.js"
import { Timestamp } from "../db/rowDecoding.js"

export const AgentRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  name: Schema.String,
  wallet_id: Schema.String,
  status: AgentStatus,
  execution_mode: ExecutionMode,
  /** JSON text (jsonb cast to text: exact, independent of the driver's JSON parsing). */
  allowed_intents_text: Schema.String,
  allowed_protocols_text: Schema.NullOr(Schema.String),
  budget_lamports: Schema.NullOr(Schema.String),
  spent_lamports_today: Schema.String,
  spent_day: Schema.String,
  budget_updated_at: Timestamp,
  autonomy_text: Schema.String,
  paused_reason: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type AgentRow = typeof AgentRow.Type

/** The column list every agent query selects, matching AgentRow. */
export const AGENT_COLUMNS = `id, tenant_id, name, wallet_id, status, execution_mode,
  allowed_intents::text AS allowed_intents_text, allowed_protocols::text AS allowed_protocols_text,
  budget_lamports::text AS budget_lamports, spent_lamports_today::text AS spent_lamports_today, spent_day,
  budget_updated_at, autonomy::text AS autonomy_text, paused_reason, created_at, updated_at`

export interface StoredAgent {
  readonly agent: Agent
  readonly tenantId: string
  /** Spent on `spentDay` (UTC); a different day means nothing is spent today yet. */
  readonly spentLamports: bigint
  readonly spentDay: string
  readonly budgetUpdatedAt: string
}

const decodeAutonomyText = Schema.decodeUnknownSync(Autonomy)

// Agent actors re-read their agent at every wake; an agent's autonomy text rarely changes, and decoding
// it by its schema was a large part of an idle tick. Decoded values are immutable, so one per text serves
// every read of it; the memo is emptied when it reaches its bound (a new text is decoded again).
const AUTONOMY_MEMO_LIMIT = 20_000
const autonomyMemo = new Map<string, Autonomy>()
const decodeAutonomy = (text: string): Autonomy => {
  const known = autonomyMemo.get(text)
  if (known !== undefined) return known
  const decoded = decodeAutonomyText(JSON.parse(text))
  if (autonomyMemo.size >= AUTONOMY_MEMO_LIMIT) autonomyMemo.clear()
  autonomyMemo.set(text, decoded)
  return decoded
}

export const toStoredAgent = (row: AgentRow): StoredAgent => ({
  tenantId: row.tenant_id,
  spentLamports: BigInt(row.spent_lamports_today),
  spentDay: row.spent_day,
  budgetUpdatedAt: row.budget_updated_at.toISOString(),
  agent: {
    id: row.id,
    name: row.name,
    walletId: row.wallet_id,
    status: row.status,
    executionMode: row.execution_mode,
    allowedIntents: JSON.parse(row.allowed_intents_text) as ReadonlyArray<TransactionType>,
    ...(row.allowed_protocols_text === null
      ? {}
      : { allowedProtocols: JSON.parse(row.allowed_protocols_text) as ReadonlyArray<ProtocolId> }),
    ...(row.budget_lamports === null ? {} : { budgetLamports: BigInt(row.budget_lamports) }),
    autonomy: decodeAutonomy(row.autonomy_text),
    ...(row.paused_reason === null ? {} : { pausedReason: row.paused_reason }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString()
  }
})

/** Spent today as of `todayKey`: a counter of an earlier day counts as nothing spent. */
export const spentToday = (stored: StoredAgent, todayKey: string): bigint =>
  stored.spentDay >= todayKey ? stored.spentLamports : 0n
