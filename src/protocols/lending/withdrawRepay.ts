/**
 * lend_withdraw / lend_repay builders of lending-market: the way out of a supply and a borrow. The intent amount
 * is the most that moves (docs/decisions/lending.md): a withdraw at or above what the supply is worth withdraws it
 * all, a repay above the debt pays exactly the debt; the program decides with interest to the second. A withdraw
 * is NOT checked against the borrows here: the program's health check refuses (7228) one that leaves them
 * uncovered; with a borrow open its prices must be fresh (ORACLE_MAX_PRICE_AGE_SECONDS), as for a borrow. SOL is wrapped in and out as for supply and borrow.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction, createCloseAccountInstruction, createSyncNativeInstruction, NATIVE_MINT
} from "@solana/spl-token"
import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js"
import { Effect } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import type { AdapterRequest } from "../adapterRequest.js"
import { builtTransaction } from "../builtTransaction.js"
import { OracleFreshness } from "../oracle/oracleFreshness.js"
import { requireFreshOracles } from "../oracle/requireFreshOracles.js"
import { repayInstruction, withdrawInstruction } from "./instructions.js"
import { repaymentFor, withdrawalFor } from "./layout.js"
import { readObligation, readReserve } from "./marketReads.js"
import { LendingMarketProgram } from "./program.js"
import { walletTokenAccount } from "./walletToken.js"

const TOKEN_ACCOUNT_SIZE = 165
/** A SOL repay wraps the debt projected this far ahead (it waits at most this long at the approval gate and still clears it). */
const SOL_REPAY_HORIZON_SECONDS = 3_600n

const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))

/** The wallet's obligation and its slot of `mint`'s reserve, or an input error naming what it lacks. */
const positionOf = (request: AdapterRequest<"lend_withdraw" | "lend_repay">, held: "supplied" | "borrowed") =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const program = yield* LendingMarketProgram
    const mint = new PublicKey(request.intent.mint)
    const reserve = yield* readReserve(facts.accounts, program, mint, request.type)
    const obligation = yield* readObligation(facts.accounts, program.programId, request.wallet)
    const slot = obligation?.state.slots.find((s) => s.reserve.equals(reserve.address))
    const holds = slot !== undefined && (held === "supplied" ? slot.supplyShares > 0n : slot.borrowedScaled > 0n)
    if (obligation === null || slot === undefined || !holds) {
      return yield* new AdapterInputError({
        protocol: request.protocol, operation: request.type, field: "mint",
        message: `intent.mint: wallet ${request.wallet.toBase58()} has nothing ${held} ${held === "supplied" ? "to" : "from"} the lending-market reserve of ${mint.toBase58()}`
      })
    }
    return { program, mint, reserve, obligation, slot, isSol: mint.equals(NATIVE_MINT) }
  })

export const buildLendWithdraw = (request: AdapterRequest<"lend_withdraw">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const { program, mint, reserve, obligation, slot, isSol } = yield* positionOf(request, "supplied")
    const { wallet, intent } = request
    // every position's reserve and oracle, in slot order: the program's health check values them all
    const positions = obligation.state.slots.map((s, i) => ({ reserve: s.reserve, oracle: obligation.reserves[i]?.oracle ?? s.reserve }))
    // With a borrow open the program judges the withdrawal on these prices, so a stale one refuses it here and
    // again before signing (as a borrow); with none, no price matters and the supply can always come out.
    const judgedOnPrices = obligation.state.slots.some((s) => s.borrowedScaled > 0n)
    const oracles = judgedOnPrices ? positions.map((p) => p.oracle) : []
    if (judgedOnPrices) yield* requireFreshOracles(facts.accounts, oracles, (yield* OracleFreshness).maxAgeSeconds)
    const token = yield* walletTokenAccount(wallet, mint)
    const keys = { programId: program.programId, owner: wallet, mint, vault: reserve.state.vault, userToken: token.address }
    const instructions: TransactionInstruction[] = [
      createAssociatedTokenAccountIdempotentInstruction(wallet, token.address, wallet, mint),
      withdrawInstruction(keys, intent.amount, positions),
      // withdrawn SOL arrives as lamports: the wrapped-SOL account the builder opened is closed into the wallet
      ...(isSol && !token.exists ? [createCloseAccountInstruction(token.address, wallet, wallet)] : [])
    ]
    const expected = withdrawalFor(reserve.state, slot.supplyShares, intent.amount, nowSeconds())
    const rent = !token.exists && !isSol ? yield* facts.rentExemptMinimum(TOKEN_ACCOUNT_SIZE) : 0n
    return builtTransaction(instructions, {
      tokenMint: intent.mint,
      tokenAmount: expected.paid,
      ...(oracles.length > 0 ? { oracleAccounts: oracles.map((oracle) => oracle.toBase58()) } : {}),
      ...(rent > 0n ? { amountLamports: rent } : {})
    })
  })

export const buildLendRepay = (request: AdapterRequest<"lend_repay">) =>
  Effect.gen(function* () {
    const { program, mint, reserve, slot, isSol } = yield* positionOf(request, "borrowed")
    const { wallet, intent } = request
    const now = nowSeconds()
    const token = yield* walletTokenAccount(wallet, mint)
    const keys = { programId: program.programId, owner: wallet, mint, vault: reserve.state.vault, userToken: token.address }
    if (isSol) {
      // wrap what the repayment can take (the debt an hour ahead at most); the account the builder opened is
      // closed again, so any lamports the program did not take come back
      const wrapped = repaymentFor(reserve.state, slot.borrowedScaled, intent.amount, now + SOL_REPAY_HORIZON_SECONDS).paid
      const instructions: TransactionInstruction[] = [
        createAssociatedTokenAccountIdempotentInstruction(wallet, token.address, wallet, mint),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: token.address, lamports: wrapped }),
        createSyncNativeInstruction(token.address),
        repayInstruction(keys, wrapped),
        ...(token.exists ? [] : [createCloseAccountInstruction(token.address, wallet, wallet)])
      ]
      return builtTransaction(instructions, { destination: reserve.address.toBase58(), tokenMint: intent.mint, tokenAmount: wrapped, amountLamports: wrapped })
    }
    const paid = repaymentFor(reserve.state, slot.borrowedScaled, intent.amount, now).paid
    if (token.balance < paid) {
      return yield* new AdapterInputError({
        protocol: request.protocol, operation: "lend_repay", field: "amount",
        message: `intent.amount: the repayment takes ${paid} of ${intent.mint}, the wallet holds ${token.balance}`
      })
    }
    return builtTransaction([repayInstruction(keys, intent.amount)], { destination: reserve.address.toBase58(), tokenMint: intent.mint, tokenAmount: paid })
  })
