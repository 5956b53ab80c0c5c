/**
 * A wallet's positions (spec: Position = protocol, type, amount, token, and value or apy; docs/decisions/staking.md):
 * native SOL and token accounts read from the chain, stake positions from confirmed position indexing valued at the
 * pool's live exchange rate, and the escrows it funded that still lock lamports. `valueLamports` is the SOL worth
 * where it has one; `value` is USD from the Pyth oracle accounts (absent when the oracle has no price, or one older
 * than ORACLE_MAX_PRICE_AGE_SECONDS: then `valueUnavailable` says why; a stale number is never shown).
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { ChainFacts } from "../chain/chainFacts.js"
import { EscrowRepo } from "../protocols/escrow/escrowRepo.js"
import { OracleFreshness } from "../protocols/oracle/oracleFreshness.js"
import { type MintPrice, readMintPrices } from "../protocols/oracle/oracleReads.js"
import { stalenessOf } from "../protocols/oracle/priceFreshness.js"
import { readStakePool } from "../protocols/staking/poolReads.js"
import { LiquidStakingProgram } from "../protocols/staking/program.js"
import { LendingMarketProgram } from "../protocols/lending/program.js"
import { LENDING_PROTOCOL, readLendingView } from "../protocols/lending/obligationView.js"
import { PublicKey } from "@solana/web3.js"
import { PositionRepo } from "./positionRepo.js"

export interface Position {
  readonly protocol: string
  readonly type: string
  /** base units of `token` (lamports for SOL) */
  readonly amount: string
  readonly token: string
  readonly valueLamports?: string
  /** USD, a decimal string with 6 places */
  readonly value?: string
  readonly address?: string
  /** lending-market positions: the account's collateral value x factor / borrowed value (4 places; absent with no borrow) */
  readonly healthFactor?: string
  /** why `value` (or a lending position's valueLamports) is absent: the oracle price is stale or missing */
  readonly valueUnavailable?: string
}

/** amount (base units, `decimals`) at price * 10^exponent USD, in micro-USD. */
export const microUsd = (amount: bigint, decimals: number, price: bigint, exponent: number): bigint => {
  const scaled = amount * price * 1_000_000n
  const shift = exponent - decimals
  return shift >= 0 ? scaled * 10n ** BigInt(shift) : scaled / 10n ** BigInt(-shift)
}

const usdString = (micro: bigint) => `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, "0")}`

const OPEN_ESCROW = new Set(["created", "accepted", "disputed"])

export class WalletPositions extends Effect.Service<WalletPositions>()("WalletPositions", {
  dependencies: [PositionRepo.Default, EscrowRepo.Default, ChainFacts.Default, LiquidStakingProgram.Default, LendingMarketProgram.Default, OracleFreshness.Default],
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const facts = yield* ChainFacts
    const repo = yield* PositionRepo
    const escrows = yield* EscrowRepo
    const staking = yield* LiquidStakingProgram
    const lending = yield* LendingMarketProgram
    const { maxAgeSeconds } = yield* OracleFreshness

    const positionsOf = (tenantId: string, walletId: string, publicKey: string) =>
      Effect.gen(function* () {
        const lamports = yield* chain.getBalance(publicKey)
        const held = yield* chain.tokenAccounts(publicKey)
        const indexed = yield* repo.listForWallet(tenantId, walletId)
        const stakes = indexed.filter((p) => p.protocol === "liquid-staking")
        // The pool's rate values the stake; a pool that cannot be read leaves the value out (never a guess).
        const pool = stakes.length === 0 ? null : yield* readStakePool(facts.accounts, staking, "query_positions").pipe(Effect.orElseSucceed(() => null))
        const mints = [NATIVE_MINT.toBase58(), ...held.map((t) => t.mint)]
        const prices = yield* readMintPrices(facts.accounts, mints)
        /** a fresh price, or why there is none to show (a stale one is never shown as a value) */
        const priceOf = (mint: string): { price: MintPrice } | { valueUnavailable: string } | null => {
          const price = prices[mints.indexOf(mint)] ?? null
          if (price === null) return null
          const stale = stalenessOf(price, maxAgeSeconds)
          return stale === null ? { price } : { valueUnavailable: stale.message }
        }
        const sol = priceOf(NATIVE_MINT.toBase58())
        const valueAt = (amount: bigint, decimals: number, priced: ReturnType<typeof priceOf>) =>
          priced === null ? {}
          : "valueUnavailable" in priced ? { valueUnavailable: priced.valueUnavailable }
          : { value: usdString(microUsd(amount, decimals, priced.price.update.price, priced.price.update.exponent)) }
        const solValue = (valueLamports: bigint) => valueAt(valueLamports, 9, sol)
        const lstMint = pool?.state.lstMint.toBase58()

        const positions: Position[] = [{ protocol: "system-program", type: "native", amount: lamports.toString(), token: "SOL", valueLamports: lamports.toString(), ...solValue(lamports) }]
        for (const token of held) {
          if (token.mint === lstMint || stakes.some((s) => s.token === token.mint)) continue // shown as a stake position
          positions.push({
            protocol: "spl-token", type: "token", amount: token.amount, token: token.mint, address: token.tokenAccount,
            ...valueAt(BigInt(token.amount), token.decimals, priceOf(token.mint))
          })
        }
        for (const stake of stakes) {
          const amount = BigInt(stake.amount)
          const worth = pool !== null && pool.state.lstMint.toBase58() === stake.token && pool.lstSupply > 0n ? (amount * pool.state.totalLamports) / pool.lstSupply : null
          positions.push({
            protocol: stake.protocol, type: "stake", amount: stake.amount, token: stake.token,
            ...(worth === null ? {} : { valueLamports: worth.toString(), ...solValue(worth) }),
            ...(pool === null ? {} : { address: pool.address.toBase58() })
          })
        }
        // Lending: the obligation as the chain shows it now (interest to now), valued at the reserves' oracles.
        const lent = !lending.configured
          ? null
          : yield* readLendingView(facts.accounts, lending.programId, new PublicKey(publicKey), BigInt(Math.floor(Date.now() / 1000)), maxAgeSeconds).pipe(
            Effect.orElseSucceed(() => null)
          )
        for (const position of lent?.positions ?? []) {
          positions.push({
            protocol: LENDING_PROTOCOL, type: position.type, amount: position.amount.toString(), token: position.mint, address: position.reserve,
            ...(position.valueLamports === null ? {} : { valueLamports: position.valueLamports.toString() }),
            ...(position.microUsd === null ? {} : { value: usdString(position.microUsd) }),
            ...(lent?.healthFactor === null || lent?.healthFactor === undefined ? {} : { healthFactor: lent.healthFactor }),
            ...(position.valueUnavailable === null ? {} : { valueUnavailable: position.valueUnavailable })
          })
        }
        for (const escrow of yield* escrows.listForWallet(tenantId, walletId, publicKey)) {
          // lamports still locked by an escrow this wallet funded
          if (escrow.creator !== publicKey || !OPEN_ESCROW.has(escrow.status)) continue
          const locked = BigInt(escrow.amount) - BigInt(escrow.paid_out)
          if (locked <= 0n) continue
          positions.push({ protocol: escrow.protocol, type: "escrow", amount: locked.toString(), token: "SOL", valueLamports: locked.toString(), ...solValue(locked), address: escrow.escrow_address })
        }
        return { positions }
      })

    return { positionsOf }
  })
}) {}
