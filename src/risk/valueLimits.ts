/**
 * Value limits (issue 34 item 1, docs/decisions/value-limits.md): the value a wallet, or an agent, may move
 * over rolling windows, in USD or SOL at oracle prices when the policy engine decides. The engine calls
 * `judge` inside its decision's SQL transaction, after taking the wallet's lock (an agent acts through one
 * wallet, so the lock serialises its spends too): the window's use is the sum of the reservations not
 * released, so concurrent decisions in any process never overshoot. `reserve` records the transaction's
 * value with the decision; `release` gives it back (the engine's releaseSpend, the same hook as the daily
 * spend). A value that cannot be had (no price, a stale price) denies.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ValueLimitInput, ValueLimitScope, type ValueCurrency, type ValueLimits, type ValueLimitsUpdate } from "../../schemas/valueLimits.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"
import { type TransactionValue, TransactionValuer, type ValueFacts } from "./transactionValue.js"

/** A limit as stored: the maximum in the currency's smallest unit (micro-USD or lamports). */
const StoredLimit = Schema.Struct({ currency: ValueLimitInput.fields.currency, windowSeconds: Schema.Number, maxUnits: Schema.String })
type StoredLimit = typeof StoredLimit.Type

const LimitRow = Schema.Struct({
  scope: ValueLimitScope,
  target_id: Schema.String,
  limits: Schema.Array(StoredLimit),
  updated_at: Timestamp
})

const UsedValue = Schema.Struct({ lamports: Schema.String, micro_usd: Schema.String })

export interface ValueSubject {
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
}

const DECIMALS: Record<ValueCurrency, number> = { USD: 6, SOL: 9 }

/** A decimal of the currency in its smallest unit; undefined when it has more decimals than the unit. */
export const toUnits = (currency: ValueCurrency, max: number | string): bigint | undefined => {
  const text = typeof max === "number" ? max.toFixed(DECIMALS[currency]).replace(/\.?0+$/, "") : max
  const [whole = "0", fraction = ""] = text.split(".")
  if (fraction.length > DECIMALS[currency]) return undefined
  return BigInt(whole) * 10n ** BigInt(DECIMALS[currency]) + BigInt(fraction.padEnd(DECIMALS[currency], "0") || "0")
}

/** Smallest units as a decimal string of the currency ("12.5"). */
export const fromUnits = (currency: ValueCurrency, units: bigint): string => {
  const scale = 10n ** BigInt(DECIMALS[currency])
  const sign = units < 0n ? "-" : ""
  const abs = units < 0n ? -units : units
  const fraction = (abs % scale).toString().padStart(DECIMALS[currency], "0").replace(/0+$/, "")
  return `${sign}${abs / scale}${fraction === "" ? "" : `.${fraction}`}`
}

const unitsOf = (value: { readonly lamports: bigint; readonly microUsd: bigint }, currency: ValueCurrency) =>
  currency === "USD" ? value.microUsd : value.lamports


export class ValueLimitStore extends Effect.Service<ValueLimitStore>()("ValueLimitStore", {
  dependencies: [TransactionValuer.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const valuer = yield* TransactionValuer

    const rowsFor = (subject: ValueSubject) =>
      sql`
        SELECT scope, target_id::text AS target_id, limits, updated_at FROM value_limits
        WHERE tenant_id = ${subject.tenantId} AND ((scope = 'wallet' AND target_id = ${subject.walletId})
          ${subject.agentId === null ? sql`` : sql`OR (scope = 'agent' AND target_id = ${subject.agentId})`})
      `.pipe(decodeRows("value_limits", LimitRow))

    /** The value used in the window ending `now` by a wallet's or an agent's reservations not released (micro-USD and lamports). */
    const usedSince = (scope: "wallet" | "agent", targetId: string, since: Date) =>
      sql`
        SELECT COALESCE(sum(value_lamports), 0)::text AS lamports, COALESCE(sum(value_micro_usd), 0)::text AS micro_usd
        FROM value_reservations
        WHERE ${scope === "wallet" ? sql`wallet_id = ${targetId}` : sql`agent_id = ${targetId}`} AND released_at IS NULL AND reserved_at > ${since}
      `.pipe(decodeRows("value_reservations", UsedValue), Effect.map(([row]) => ({ lamports: BigInt(row?.lamports ?? "0"), microUsd: BigInt(row?.micro_usd ?? "0") })))

    /**
     * In the decision's SQL transaction, under the wallet's lock: the reasons the transaction would pass a
     * limit (or why its value cannot be had), and its value to reserve. No limit: nothing is read.
     */
    const judge = (subject: ValueSubject, facts: ValueFacts, now: Date) =>
      Effect.gen(function* () {
        const rows = yield* rowsFor(subject)
        if (rows.every((row) => row.limits.length === 0)) return { denied: [] as Array<string>, value: undefined }
        const value: TransactionValue = yield* valuer.valueOf(facts)
        if (value._tag === "Unavailable") return { denied: [`value limit: the transaction's value is unknown (${value.reason})`], value: undefined }
        const denied: Array<string> = []
        for (const row of rows) {
          for (const limit of row.limits) {
            const used = unitsOf(yield* usedSince(row.scope, row.target_id, new Date(now.getTime() - limit.windowSeconds * 1000)), limit.currency)
            const adding = unitsOf(value, limit.currency)
            const max = BigInt(limit.maxUnits)
            if (used + adding > max) {
              denied.push(
                `value limit: ${row.scope} ${row.target_id} may move ${fromUnits(limit.currency, max)} ${limit.currency} per ${limit.windowSeconds}s; ` +
                  `used ${fromUnits(limit.currency, used)}, this transaction ${fromUnits(limit.currency, adding)}`
              )
            }
          }
        }
        return { denied, value }
      })

    /** Records the transaction's value (once per transaction), in the decision's SQL transaction. */
    const reserve = (txId: string, subject: ValueSubject, value: { readonly lamports: bigint; readonly microUsd: bigint }) =>
      sql`
        INSERT INTO value_reservations (tx_id, tenant_id, wallet_id, agent_id, value_lamports, value_micro_usd)
        VALUES (${txId}, ${subject.tenantId}, ${subject.walletId}, ${subject.agentId}, ${value.lamports.toString()}, ${value.microUsd.toString()})
        ON CONFLICT (tx_id) DO UPDATE SET value_lamports = EXCLUDED.value_lamports, value_micro_usd = EXCLUDED.value_micro_usd,
          reserved_at = now(), released_at = NULL
      `.pipe(Effect.asVoid)

    /** The transaction did not land (or starts over): its value no longer counts. Idempotent. */
    const release = (txId: string) => sql`UPDATE value_reservations SET released_at = now() WHERE tx_id = ${txId} AND released_at IS NULL`.pipe(Effect.asVoid)

    /** The limits of a wallet or an agent with their use now. */
    const state = (scope: "wallet" | "agent", targetId: string, tenantId: string, now: Date) =>
      Effect.gen(function* () {
        const [row] = yield* sql`
          SELECT scope, target_id::text AS target_id, limits, updated_at FROM value_limits WHERE scope = ${scope} AND target_id = ${targetId} AND tenant_id = ${tenantId}
        `.pipe(decodeRows("value_limits", LimitRow))
        const limits = row === undefined ? [] : row.limits
        const states = yield* Effect.forEach(limits, (limit) =>
          Effect.gen(function* () {
            const since = new Date(now.getTime() - limit.windowSeconds * 1000)
            const used = unitsOf(yield* usedSince(scope, targetId, since), limit.currency)
            const max = BigInt(limit.maxUnits)
            return {
              currency: limit.currency, windowSeconds: limit.windowSeconds, max: fromUnits(limit.currency, max),
              used: fromUnits(limit.currency, used), remaining: fromUnits(limit.currency, max > used ? max - used : 0n), windowStart: since.toISOString()
            }
          })
        )
        const answer: ValueLimits = { scope, targetId, limits: states, updatedAt: row === undefined ? null : row.updated_at.toISOString() }
        return answer
      }).pipe(Effect.orDie)

    /** Replaces the set of limits (already validated; `max` in smallest units). */
    const put = (scope: "wallet" | "agent", targetId: string, tenantId: string, update: ValueLimitsUpdate, maxUnits: ReadonlyArray<bigint>) =>
      Effect.gen(function* () {
        const limits: Array<StoredLimit> = update.limits.map((limit, index) => ({ currency: limit.currency, windowSeconds: limit.windowSeconds, maxUnits: maxUnits[index]!.toString() }))
        if (limits.length === 0) yield* sql`DELETE FROM value_limits WHERE scope = ${scope} AND target_id = ${targetId} AND tenant_id = ${tenantId}`
        else {
          yield* sql`
            INSERT INTO value_limits (scope, target_id, tenant_id, limits) VALUES (${scope}, ${targetId}, ${tenantId}, ${JSON.stringify(limits)}::jsonb)
            ON CONFLICT (scope, target_id) DO UPDATE SET limits = EXCLUDED.limits, updated_at = now()
          `
        }
        return yield* state(scope, targetId, tenantId, new Date())
      }).pipe(Effect.orDie)

    return { judge, reserve, release, state, put }
  })
}) {}
