/**
 * Everything POST /evaluate reads, in ONE SQL statement (instead of up to ten round trips): the
 * wallet's tenant (tenancy-filtered), its active policies, the day's spend, the rate counts of every
 * rate_limit window its stored rules name (a portfolio_risk rule's value is read by the engine from the
 * chain and the oracle, docs/decisions/portfolio.md). The statement takes a list of inputs, so concurrent calls share it
 * (whatIfReadBatch.ts). A what-if takes no lock, so one consistent snapshot is all it needs. The SQL
 * reads windows from the raw stored JSON only where they are plain integers in range; the engine checks
 * the compiled rules' needs against what came back and reads anything missing the usual way, so a
 * malformed stored rule is still judged by the evaluator, never here.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"
import type { PolicyHeader } from "./compiledPolicyCache.js"

export interface WhatIfSnapshot {
  readonly tenantId: string
  /** Active policies of the wallet in its tenant, oldest first (as PolicyRepo.activeForWallet). */
  readonly policies: ReadonlyArray<{ readonly policy: PolicyHeader; readonly rulesText: string }>
  /** Lamports counted on `utcDay` (0n when there is no counter row). */
  readonly dailySpentLamports: bigint
  /** Events per window length (seconds) for the rate key, with at > instant - window. */
  readonly rateCounts: ReadonlyMap<number, number>
}

const SnapshotRow = Schema.Struct({
  idx: Schema.Number,
  tenant_id: Schema.String,
  policies: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      wallet_id: Schema.String,
      name: Schema.String,
      version: Schema.Number,
      active: Schema.Boolean,
      rules_text: Schema.String
    })
  ),
  daily_spent: Schema.NullOr(Schema.String),
  rate_counts: Schema.Record({ key: Schema.String, value: Schema.Number })
})

export interface WhatIfInput {
  readonly walletId: string
  readonly readTenant: string | null
  readonly utcDay: string
  readonly rateKey: string
  readonly instant: Date
}

const toSnapshot = (row: typeof SnapshotRow.Type): WhatIfSnapshot => ({
  tenantId: row.tenant_id,
  policies: row.policies.map((p) => ({
    policy: { id: p.id, walletId: p.wallet_id, name: p.name, version: p.version, active: p.active },
    rulesText: p.rules_text
  })),
  dailySpentLamports: row.daily_spent === null ? 0n : BigInt(row.daily_spent),
  rateCounts: new Map(Object.entries(row.rate_counts).map(([seconds, n]) => [Number(seconds), n]))
})

/**
 * The snapshots of several inputs in one statement (one row per input whose wallet is visible), in
 * input order; undefined where the wallet does not exist in that caller's readable tenants. Fails as
 * a whole on any SQL or decode error.
 */
export const readWhatIfSnapshots = (inputs: ReadonlyArray<WhatIfInput>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = inputs.map((input, idx) => ({
      idx,
      wallet_id: input.walletId,
      read_tenant: input.readTenant,
      utc_day: input.utcDay,
      rate_key: input.rateKey,
      instant: input.instant.toISOString()
    }))
    const decoded = yield* sql`
      SELECT i.idx, w.tenant_id,
        (SELECT coalesce(json_agg(json_build_object(
            'id', a.id, 'wallet_id', a.wallet_id, 'name', a.name, 'version', a.version, 'active', a.active, 'rules_text', a.rules::text
          ) ORDER BY a.created_at, a.id), '[]'::json)
          FROM policies a WHERE a.wallet_id = w.id AND a.tenant_id = w.tenant_id AND a.active) AS policies,
        (SELECT spent_lamports::text FROM policy_daily_spend WHERE wallet_id = w.id AND utc_day = i.utc_day) AS daily_spent,
        (SELECT coalesce(json_object_agg(rw.seconds, (SELECT count(*) FROM policy_rate_events e
            WHERE e.key = i.rate_key AND e.window_seconds = rw.seconds AND e.at > i.instant - rw.seconds * interval '1 second')), '{}'::json)
          FROM (SELECT DISTINCT seconds::integer AS seconds FROM unnest(k.types, k.windows) AS r(type, seconds) WHERE r.seconds BETWEEN 1 AND 2592000 AND r.seconds % 1 = 0) rw
        ) AS rate_counts
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS i(idx integer, wallet_id uuid, read_tenant text, utc_day text,
        rate_key text, instant timestamptz)
      JOIN wallets w ON w.id = i.wallet_id AND (i.read_tenant IS NULL OR w.tenant_id = i.read_tenant)
      -- Type and window of every stored rule of the wallet's active policies, read defensively: CASE,
      -- not AND (PostgreSQL may reorder AND, and a cast of a non-number would fail the statement).
      CROSS JOIN LATERAL (
        SELECT coalesce(array_agg(r.value ->> 'type'), '{}') AS types,
          coalesce(array_agg(CASE WHEN r.value ->> 'type' = 'rate_limit' AND jsonb_typeof(r.value -> 'windowSeconds') = 'number'
            THEN (r.value ->> 'windowSeconds')::numeric END), '{}') AS windows
        FROM policies a, jsonb_array_elements(CASE WHEN jsonb_typeof(a.rules) = 'array' THEN a.rules ELSE '[]'::jsonb END) AS r(value)
        WHERE a.wallet_id = w.id AND a.tenant_id = w.tenant_id AND a.active
      ) k
      ORDER BY i.idx
    `.pipe(decodeRows("policies", SnapshotRow))
    const snapshots: Array<WhatIfSnapshot | undefined> = inputs.map(() => undefined)
    for (const row of decoded) snapshots[row.idx] = toSnapshot(row)
    return snapshots
  })
