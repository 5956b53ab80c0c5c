/**
 * An owner's lending positions as the chain shows them now: per obligation slot, what is supplied and what
 * is borrowed (interest projected to now, as the program's health check does), each valued at its reserve's
 * oracle (USD, 6 decimals) and in lamports at the SOL oracle; and the account's health factor: the sum of
 * supplied value x collateral factor over the sum of borrowed value (the program refuses a borrow below 1).
 * A price older than the bound (priceFreshness.ts) values nothing: the value is unavailable, with the reason.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import type { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { decodeClockUnixTimestamp, CLOCK_SYSVAR_ADDRESS } from "../oracle/chainClock.js"
import { feedOfMint } from "../oracle/feeds.js"
import { priceUpdateOf, readMintPrices } from "../oracle/oracleReads.js"
import { stalenessOf } from "../oracle/priceFreshness.js"
import type { PriceUpdate } from "../oracle/priceUpdate.js"
import { tokenLamports } from "../oracle/tokenLamports.js"
import { healthOf, slotAmounts, usdValue } from "./layout.js"
import { type ReadAccounts, readObligation } from "./marketReads.js"

export const LENDING_PROTOCOL = "lending-market"
export type LendingPositionType = "supply" | "borrow"

export interface LendingPosition {
  readonly type: LendingPositionType
  readonly mint: string
  readonly reserve: string
  /** base units of `mint` */
  readonly amount: bigint
  /** USD with 6 decimals, null when the reserve's oracle has no price */
  readonly microUsd: bigint | null
  /** worth in lamports at the oracle prices (positive for a borrow too), null without prices */
  readonly valueLamports: bigint | null
  /** why microUsd or valueLamports is null (a stale or missing oracle price); null when both are known */
  readonly valueUnavailable: string | null
}

export interface LendingView {
  readonly positions: ReadonlyArray<LendingPosition>
  /** collateral value x factor / borrowed value, 4 decimals; null when nothing is borrowed or a price is missing */
  readonly healthFactor: string | null
}

type Priced = { readonly update: PriceUpdate; readonly unavailable: null } | { readonly update: null; readonly unavailable: string }

/** "1.2345": floor to 4 places. */
export const ratioString = (numerator: bigint, denominator: bigint): string => {
  const scaled = (numerator * 10_000n) / denominator
  return `${scaled / 10_000n}.${(scaled % 10_000n).toString().padStart(4, "0")}`
}

export const readLendingView = (accounts: ReadAccounts, programId: PublicKey, owner: PublicKey, nowSeconds: bigint, maxPriceAgeSeconds: number) =>
  Effect.gen(function* () {
    const obligation = yield* readObligation(accounts, programId, owner)
    if (obligation === null) return { positions: [], healthFactor: null } satisfies LendingView
    // a slot whose reserve cannot be read is skipped below; its place in the read is kept with the owner's key
    const oracles = obligation.reserves.map((reserve) => reserve?.oracle.toBase58() ?? owner.toBase58())
    const [clock, ...priceAccounts] = yield* accounts([CLOCK_SYSVAR_ADDRESS, ...oracles])
    const chainTime = decodeClockUnixTimestamp(clock)
    // lamports are valued at the SOL oracle the wallet's other positions use
    const [solFeed] = yield* readMintPrices(accounts, [NATIVE_MINT.toBase58()])
    const solStale = solFeed === null || solFeed === undefined ? null : stalenessOf(solFeed, maxPriceAgeSeconds)
    const solPrice = solStale === null ? solFeed?.update ?? null : null
    const solUnavailable = solStale?.message ?? (solPrice === null ? "no oracle price for SOL" : null)
    /** a reserve's oracle price, unless it is missing or older than the bound */
    const pricedAt = (i: number, mint: PublicKey): Priced => {
      const update = priceUpdateOf(priceAccounts[i])
      if (update === null) return { update: null, unavailable: `no oracle price for ${mint.toBase58()} at ${oracles[i]}` }
      const stale = stalenessOf({ symbol: feedOfMint(mint.toBase58())?.symbol ?? mint.toBase58(), feedId: update.feedId, account: oracles[i]!, update, chainTime }, maxPriceAgeSeconds)
      return stale === null ? { update, unavailable: null } : { update: null, unavailable: stale.message }
    }

    const positions: LendingPosition[] = []
    const health: Array<{ suppliedValue: bigint; borrowedValue: bigint; collateralFactorBps: number }> = []
    let priced = true
    for (const [i, slot] of obligation.state.slots.entries()) {
      const reserve = obligation.reserves[i]
      if (reserve === null || reserve === undefined) continue
      const { update: price, unavailable } = pricedAt(i, reserve.mint)
      const { supplied, borrowed } = slotAmounts(reserve, slot, nowSeconds)
      const value = (amount: bigint) => (price === null ? null : usdValue(amount, reserve.decimals, price.price, price.exponent))
      // the same conversion portfolio risk values tokens with (no price, or a price <= 0: unknown)
      const lamports = (amount: bigint) =>
        reserve.mint.equals(NATIVE_MINT) ? amount
        : price === null || price.price <= 0n || solPrice === null || solPrice.price <= 0n ? null
        : tokenLamports(amount, reserve.decimals, price, solPrice)
      const why = unavailable ?? (reserve.mint.equals(NATIVE_MINT) ? null : solUnavailable)
      const suppliedValue = value(supplied)
      const borrowedValue = value(borrowed)
      if (suppliedValue === null || borrowedValue === null) priced = false
      health.push({ suppliedValue: suppliedValue ?? 0n, borrowedValue: borrowedValue ?? 0n, collateralFactorBps: reserve.collateralFactorBps })
      const mint = reserve.mint.toBase58()
      const address = slot.reserve.toBase58()
      if (supplied > 0n) positions.push({ type: "supply", mint, reserve: address, amount: supplied, microUsd: suppliedValue, valueLamports: lamports(supplied), valueUnavailable: why })
      if (borrowed > 0n) positions.push({ type: "borrow", mint, reserve: address, amount: borrowed, microUsd: borrowedValue, valueLamports: lamports(borrowed), valueUnavailable: why })
    }
    const sums = healthOf(health)
    const healthFactor = !priced || sums.debtValue === 0n ? null : ratioString(sums.collateralValue, sums.debtValue)
    return { positions, healthFactor } satisfies LendingView
  })
