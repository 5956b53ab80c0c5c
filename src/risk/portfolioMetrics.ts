/**
 * Projected portfolio metrics of a wallet (after the transaction), from its confirmed history in
 * `transactions` (pre/post balances) and the transaction's facts. Definitions (docs/decisions/policy.md):
 *   drawdown    = max(peak balance ever confirmed, current) - projected balance, floored at 0
 *   daily loss  = balance before the first confirmed transaction of the UTC day (else current) - projected, floored at 0
 *   exposure    = net lamports put into a protocol (or token mint) by confirmed transactions, plus this
 *                 amount, over (projected balance + all such positions), in bps. Plain transfers
 *                 (system-program, spl-token) are payments, not positions, and create no exposure.
 *                 A protocol with indexed positions (POSITION_PROTOCOLS: liquid-staking) counts what its
 *                 positions are worth (table `positions`, valued at indexing) instead of its net lamports.
 * Only the protocol and mint this transaction touches are reported, as the portfolio checks expect.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { PortfolioMetrics } from "./projectedMetrics.js"

export const PAYMENT_PROTOCOLS: ReadonlyArray<string> = ["system-program", "spl-token"]
/** Protocols whose exposure is the value of the wallet's indexed positions (docs/decisions/staking.md). */
export const POSITION_PROTOCOLS: ReadonlyArray<string> = ["liquid-staking"]

export interface PortfolioHistory {
  readonly peakLamports: bigint | undefined
  readonly dayStartLamports: bigint | undefined
  readonly latestLamports: bigint | undefined
  /** Net lamports into each position protocol (positive = still invested). */
  readonly netIntoProtocol: ReadonlyMap<string, bigint>
  readonly netIntoMint: ReadonlyMap<string, bigint>
}

export interface PortfolioFacts {
  readonly protocol: string
  readonly tokenMint?: string | undefined
  readonly amountLamports?: bigint | undefined
  /** The balance read by the pipeline before building; else the last confirmed post-balance. */
  readonly preBalanceLamports?: bigint | undefined
}

const max = (a: bigint, b: bigint) => (a > b ? a : b)
const positive = (value: bigint) => max(value, 0n)
const bps = (part: bigint, whole: bigint): number => (whole <= 0n ? (part > 0n ? 10_000 : 0) : Number((part * 10_000n) / whole))

export const projectPortfolioMetrics = (history: PortfolioHistory, facts: PortfolioFacts): PortfolioMetrics => {
  const current = facts.preBalanceLamports ?? history.latestLamports ?? 0n
  const amount = facts.amountLamports ?? 0n
  const projected = positive(current - amount)
  const peak = max(history.peakLamports ?? current, current)
  const dayStart = history.dayStartLamports ?? current
  const opensPosition = !PAYMENT_PROTOCOLS.includes(facts.protocol)

  let invested = 0n
  for (const net of history.netIntoProtocol.values()) invested += positive(net)
  if (opensPosition) invested += amount
  const value = projected + invested

  const protocolExposureBps: Record<string, number> = {}
  const tokenExposureBps: Record<string, number> = {}
  if (opensPosition) {
    // What the wallet took out of a protocol beyond what it put in does not offset a new deposit.
    protocolExposureBps[facts.protocol] = bps(positive(history.netIntoProtocol.get(facts.protocol) ?? 0n) + amount, value)
    if (facts.tokenMint !== undefined) {
      tokenExposureBps[facts.tokenMint] = bps(positive(history.netIntoMint.get(facts.tokenMint) ?? 0n) + amount, value)
    }
  }
  return {
    drawdownLamports: positive(peak - projected),
    dailyLossLamports: positive(dayStart - projected),
    tokenExposureBps,
    protocolExposureBps
  }
}

const big = (text: string | null | undefined) => (text === null || text === undefined ? undefined : BigInt(text))

/** Reads the history summary with five indexed queries (within the caller's transaction, if any). */
export const readPortfolioHistory = (walletId: string, tenantId: string, utcDay: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const dayStart = new Date(`${utcDay}T00:00:00.000Z`)
    const confirmed = sql`wallet_id = ${walletId} AND tenant_id = ${tenantId} AND status = 'confirmed'
      AND pre_balance_lamports IS NOT NULL AND post_balance_lamports IS NOT NULL`
    const [summary] = yield* sql<{ peak: string | null; day_start: string | null; latest: string | null }>`
      SELECT
        (SELECT max(greatest(pre_balance_lamports, post_balance_lamports))::text FROM transactions WHERE ${confirmed}) AS peak,
        (SELECT pre_balance_lamports::text FROM transactions WHERE ${confirmed} AND confirmed_at >= ${dayStart}
          ORDER BY confirmed_at LIMIT 1) AS day_start,
        (SELECT post_balance_lamports::text FROM transactions WHERE ${confirmed} ORDER BY confirmed_at DESC LIMIT 1) AS latest
    `
    const byProtocol = yield* sql<{ key: string; net: string }>`
      SELECT protocol AS key, sum(pre_balance_lamports - post_balance_lamports)::text AS net FROM transactions
      WHERE ${confirmed} AND protocol NOT IN ${sql.in(PAYMENT_PROTOCOLS)} GROUP BY protocol
    `
    const byMint = yield* sql<{ key: string; net: string }>`
      SELECT coalesce(intent->>'outputMint', intent->>'mint') AS key, sum(pre_balance_lamports - post_balance_lamports)::text AS net
      FROM transactions
      WHERE ${confirmed} AND protocol NOT IN ${sql.in(PAYMENT_PROTOCOLS)} AND coalesce(intent->>'outputMint', intent->>'mint') IS NOT NULL
      GROUP BY 1
    `
    const positionValues = yield* sql<{ key: string; value: string }>`
      SELECT protocol AS key, sum(value_lamports)::text AS value FROM positions
      WHERE wallet_id = ${walletId} AND tenant_id = ${tenantId} AND protocol IN ${sql.in(POSITION_PROTOCOLS)} GROUP BY protocol
    `
    const netIntoProtocol = new Map(byProtocol.map((row) => [row.key, BigInt(row.net)]))
    // what the positions are worth now replaces the cash flows (rewards counted, an exited position is 0)
    for (const protocol of POSITION_PROTOCOLS) netIntoProtocol.delete(protocol)
    for (const row of positionValues) netIntoProtocol.set(row.key, BigInt(row.value))
    const history: PortfolioHistory = {
      peakLamports: big(summary?.peak),
      dayStartLamports: big(summary?.day_start),
      latestLamports: big(summary?.latest),
      netIntoProtocol,
      netIntoMint: new Map(byMint.map((row) => [row.key, BigInt(row.net)]))
    }
    return history
  })
