/**
 * Everything POST /evaluate reads, in ONE SQL statement (one round trip instead of four to six): the
 * wallet's tenant (tenancy-filtered), its active policies, the day's spend and the rate counts of
 * every rate_limit window its stored rules name, and (when a stored rule is a portfolio_risk) the
 * wallet's portfolio history. A what-if takes no lock, so one consistent snapshot
 * is all it needs. The SQL reads windows from the raw stored JSON only where they are plain integers
 * in range; the engine checks the compiled rules' needs against what came back and reads anything
 * missing the usual way, so a malformed stored rule is still judged by the evaluator, never here.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PAYMENT_PROTOCOLS, type PortfolioHistory } from "../risk/portfolioMetrics.js"
import { toStored, type StoredPolicyRow } from "./policyRepo.js"

export interface WhatIfSnapshot {
  readonly tenantId: string
  /** Active policies of the wallet in its tenant, oldest first (as PolicyRepo.activeForWallet). */
  readonly policies: ReadonlyArray<StoredPolicyRow>
  /** Lamports counted on `utcDay` (0n when there is no counter row). */
  readonly dailySpentLamports: bigint
  /** Events per window length (seconds) for the rate key, with at > instant - window. */
  readonly rateCounts: ReadonlyMap<number, number>
  /** Read when any stored rule has type portfolio_risk; else undefined (the engine reads it if it needs it). */
  readonly portfolioHistory: PortfolioHistory | undefined
}

const SnapshotRow = Schema.Struct({
  tenant_id: Schema.String,
  policies: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      tenant_id: Schema.String,
      wallet_id: Schema.String,
      name: Schema.String,
      version: Schema.Number,
      active: Schema.Boolean,
      rules_text: Schema.String,
      created_ms: Schema.Number,
      updated_ms: Schema.Number
    })
  ),
  daily_spent: Schema.NullOr(Schema.String),
  rate_counts: Schema.Record({ key: Schema.String, value: Schema.Number }),
  portfolio: Schema.NullOr(
    Schema.Struct({
      peak: Schema.NullOr(Schema.String),
      day_start: Schema.NullOr(Schema.String),
      latest: Schema.NullOr(Schema.String),
      by_protocol: Schema.Record({ key: Schema.String, value: Schema.String }),
      by_mint: Schema.Record({ key: Schema.String, value: Schema.String })
    })
  )
})
const bigOrUndefined = (text: string | null) => (text === null ? undefined : BigInt(text))
const bigMap = (record: Readonly<Record<string, string>>) => new Map(Object.entries(record).map(([key, net]) => [key, BigInt(net)]))
const decodeRows = Schema.decodeUnknown(Schema.Array(SnapshotRow))

/** Undefined when the wallet does not exist in the caller's readable tenants. Fails on any SQL or decode error. */
export const readWhatIfSnapshot = (
  input: { walletId: string; readTenant: string | null; utcDay: string; rateKey: string; instant: Date }
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tenantFilter = input.readTenant === null ? sql`` : sql`AND tenant_id = ${input.readTenant}`
    // The reads of readPortfolioHistory (src/risk/portfolioMetrics.ts) as subqueries: keep the two in step.
    const confirmed = sql`t.wallet_id = w.id AND t.tenant_id = w.tenant_id AND t.status = 'confirmed'
      AND t.pre_balance_lamports IS NOT NULL AND t.post_balance_lamports IS NOT NULL`
    const position = sql`${confirmed} AND t.protocol NOT IN ${sql.in(PAYMENT_PROTOCOLS)}`
    const mint = sql`coalesce(t.intent->>'outputMint', t.intent->>'mint')`
    const dayStart = new Date(`${input.utcDay}T00:00:00.000Z`)
    const rows = yield* sql`
      WITH wallet AS (
        SELECT id, tenant_id FROM wallets WHERE id = ${input.walletId} ${tenantFilter}
      ), active AS (
        SELECT p.* FROM policies p JOIN wallet w ON p.wallet_id = w.id AND p.tenant_id = w.tenant_id WHERE p.active
      ), rule AS (
        SELECT r.value AS rule FROM active p,
          jsonb_array_elements(CASE WHEN jsonb_typeof(p.rules) = 'array' THEN p.rules ELSE '[]'::jsonb END) AS r(value)
      ), raw_window AS (
        -- CASE, not AND: PostgreSQL may reorder AND, and a cast of a non-number would fail the statement.
        SELECT DISTINCT CASE WHEN jsonb_typeof(rule -> 'windowSeconds') = 'number' THEN (rule ->> 'windowSeconds')::numeric END AS seconds
        FROM rule WHERE rule ->> 'type' = 'rate_limit'
      ), rate_window AS (
        SELECT seconds::integer AS seconds FROM raw_window WHERE seconds BETWEEN 1 AND 2592000 AND seconds % 1 = 0
      )
      SELECT w.tenant_id,
        (SELECT coalesce(json_agg(json_build_object(
            'id', a.id, 'tenant_id', a.tenant_id, 'wallet_id', a.wallet_id, 'name', a.name, 'version', a.version,
            'active', a.active, 'rules_text', a.rules::text,
            'created_ms', extract(epoch FROM a.created_at) * 1000, 'updated_ms', extract(epoch FROM a.updated_at) * 1000
          ) ORDER BY a.created_at, a.id), '[]'::json) FROM active a) AS policies,
        (SELECT spent_lamports::text FROM policy_daily_spend WHERE wallet_id = w.id AND utc_day = ${input.utcDay}) AS daily_spent,
        (SELECT coalesce(json_object_agg(c.seconds, c.n), '{}'::json) FROM (
          SELECT rw.seconds, (SELECT count(*) FROM policy_rate_events e
            WHERE e.key = ${input.rateKey} AND e.window_seconds = rw.seconds
              AND e.at > ${input.instant}::timestamptz - rw.seconds * interval '1 second') AS n
          FROM rate_window rw
        ) c) AS rate_counts,
        CASE WHEN EXISTS (SELECT 1 FROM rule WHERE rule ->> 'type' = 'portfolio_risk') THEN json_build_object(
          'peak', (SELECT max(greatest(t.pre_balance_lamports, t.post_balance_lamports))::text FROM transactions t WHERE ${confirmed}),
          'day_start', (SELECT t.pre_balance_lamports::text FROM transactions t WHERE ${confirmed} AND t.confirmed_at >= ${dayStart}
            ORDER BY t.confirmed_at LIMIT 1),
          'latest', (SELECT t.post_balance_lamports::text FROM transactions t WHERE ${confirmed} ORDER BY t.confirmed_at DESC LIMIT 1),
          'by_protocol', (SELECT coalesce(json_object_agg(x.key, x.net), '{}'::json) FROM (
            SELECT t.protocol AS key, sum(t.pre_balance_lamports - t.post_balance_lamports)::text AS net
            FROM transactions t WHERE ${position} GROUP BY t.protocol) x),
          'by_mint', (SELECT coalesce(json_object_agg(x.key, x.net), '{}'::json) FROM (
            SELECT ${mint} AS key, sum(t.pre_balance_lamports - t.post_balance_lamports)::text AS net
            FROM transactions t WHERE ${position} AND ${mint} IS NOT NULL GROUP BY 1) x)
        ) END AS portfolio
      FROM wallet w
    `
    const decoded = yield* decodeRows(rows)
    if (decoded.length === 0) return undefined
    const row = decoded[0]
    const snapshot: WhatIfSnapshot = {
      tenantId: row.tenant_id,
      policies: row.policies.map((p) =>
        toStored({ ...p, created_at: new Date(p.created_ms), updated_at: new Date(p.updated_ms) })
      ),
      dailySpentLamports: row.daily_spent === null ? 0n : BigInt(row.daily_spent),
      rateCounts: new Map(Object.entries(row.rate_counts).map(([seconds, n]) => [Number(seconds), n])),
      portfolioHistory:
        row.portfolio === null
          ? undefined
          : {
              peakLamports: bigOrUndefined(row.portfolio.peak),
              dayStartLamports: bigOrUndefined(row.portfolio.day_start),
              latestLamports: bigOrUndefined(row.portfolio.latest),
              netIntoProtocol: bigMap(row.portfolio.by_protocol),
              netIntoMint: bigMap(row.portfolio.by_mint)
            }
    }
    return snapshot
  })
