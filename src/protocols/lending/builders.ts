/**
 * lend_supply / lend_borrow builders of lending-market. SOL is lent as wrapped SOL: the builder wraps into the
 * wallet's wrapped-SOL account (and closes it again when it created it, so the wallet holds lamports, not
 * wSOL). A borrow is NOT checked against the collateral here: the program's health check refuses an unsafe
 * borrow on chain (7221), so what decides is the chain, with live prices and interest. The program does not age
 * the prices it reads, so the builder does: a borrow whose positions' oracle prices (the ones the health check
 * reads) are older than ORACLE_MAX_PRICE_AGE_SECONDS fails closed at build (StalePriceError, docs/decisions/oracle.md).
 */
import {
  createAssociatedTokenAccountIdempotentInstruction, createCloseAccountInstruction, createSyncNativeInstruction, NATIVE_MINT
} from "@solana/spl-token"
import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js"
import { Effect } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import type { AdapterRequest, Builders } from "../adapterRequest.js"
import { builtTransaction } from "../builtTransaction.js"
import { buildFlashLoanBundle } from "./flashLoan.js"
import { borrowInstruction, supplyInstruction } from "./instructions.js"
import { OBLIGATION_ACCOUNT_SIZE } from "./layout.js"
import { readObligation, readReserve } from "./marketReads.js"
import { LendingMarketProgram } from "./program.js"
import { OracleFreshness } from "../oracle/oracleFreshness.js"
import { requireFreshOracles } from "../oracle/requireFreshOracles.js"
import { walletTokenAccount } from "./walletToken.js"
import { buildLendRepay, buildLendWithdraw } from "./withdrawRepay.js"

const TOKEN_ACCOUNT_SIZE = 165

export const buildLendSupply = (request: AdapterRequest<"lend_supply">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const program = yield* LendingMarketProgram
    const { wallet, intent } = request
    const mint = new PublicKey(intent.mint)
    const reserve = yield* readReserve(facts.accounts, program, mint, "lend_supply")
    const token = yield* walletTokenAccount(wallet, mint)
    const isSol = mint.equals(NATIVE_MINT)
    if (!isSol && token.balance < intent.amount) {
      return yield* new AdapterInputError({ protocol: request.protocol, operation: "lend_supply", field: "amount", message: `intent.amount: the wallet holds ${token.balance} of ${intent.mint}, needs ${intent.amount}` })
    }
    const obligation = yield* readObligation(facts.accounts, program.programId, wallet)
    const obligationRent = obligation === null ? yield* facts.rentExemptMinimum(OBLIGATION_ACCOUNT_SIZE) : 0n
    const keys = { programId: program.programId, owner: wallet, mint, vault: reserve.state.vault, userToken: token.address }
    const instructions: TransactionInstruction[] = [
      createAssociatedTokenAccountIdempotentInstruction(wallet, token.address, wallet, mint),
      ...(isSol ? [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: token.address, lamports: intent.amount }), createSyncNativeInstruction(token.address)] : []),
      supplyInstruction(keys, intent.amount),
      // a wrapped-SOL account the builder opened is closed again: its rent comes back
      ...(isSol && !token.exists ? [createCloseAccountInstruction(token.address, wallet, wallet)] : [])
    ]
    // SOL leaving the wallet besides fees: the SOL supplied, the obligation's rent when it is new
    const lamports = (isSol ? intent.amount : 0n) + obligationRent
    return builtTransaction(instructions, {
      destination: reserve.address.toBase58(),
      tokenMint: intent.mint,
      tokenAmount: intent.amount,
      ...(lamports > 0n ? { amountLamports: lamports } : {})
    })
  })

export const buildLendBorrow = (request: AdapterRequest<"lend_borrow">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const program = yield* LendingMarketProgram
    const { wallet, intent } = request
    const mint = new PublicKey(intent.mint)
    const reserve = yield* readReserve(facts.accounts, program, mint, "lend_borrow")
    const obligation = yield* readObligation(facts.accounts, program.programId, wallet)
    if (obligation === null) {
      return yield* new AdapterInputError({ protocol: request.protocol, operation: "lend_borrow", message: `wallet ${wallet.toBase58()} has supplied nothing to the lending market: supply collateral first (lend_supply)` })
    }
    // every position's reserve and oracle, in slot order, then the borrowed reserve when it is a new position
    const positions = obligation.state.slots.map((slot, i) => ({ reserve: slot.reserve, oracle: obligation.reserves[i]?.oracle ?? slot.reserve }))
    const withBorrowed = positions.some((p) => p.reserve.equals(reserve.address)) ? positions : [...positions, { reserve: reserve.address, oracle: reserve.state.oracle }]
    const { maxAgeSeconds } = yield* OracleFreshness
    const oracles = withBorrowed.map((p) => p.oracle)
    yield* requireFreshOracles(facts.accounts, oracles, maxAgeSeconds)
    const token = yield* walletTokenAccount(wallet, mint)
    const isSol = mint.equals(NATIVE_MINT)
    const keys = { programId: program.programId, owner: wallet, mint, vault: reserve.state.vault, userToken: token.address }
    const instructions: TransactionInstruction[] = [
      createAssociatedTokenAccountIdempotentInstruction(wallet, token.address, wallet, mint),
      borrowInstruction(keys, intent.amount, withBorrowed),
      // borrowed SOL arrives as lamports: the wrapped-SOL account the builder opened is closed into the wallet
      ...(isSol && !token.exists ? [createCloseAccountInstruction(token.address, wallet, wallet)] : [])
    ]
    const rent = !token.exists && !isSol ? yield* facts.rentExemptMinimum(TOKEN_ACCOUNT_SIZE) : 0n
    return builtTransaction(instructions, {
      tokenMint: intent.mint,
      tokenAmount: intent.amount,
      // a borrow may wait at the approval gate: the pipeline ages these prices again before it signs
      oracleAccounts: oracles.map((oracle) => oracle.toBase58()),
      ...(rent > 0n ? { amountLamports: rent } : {})
    })
  })

export const lendingBuilders: Builders = {
  lend_supply: buildLendSupply, lend_borrow: buildLendBorrow, lend_withdraw: buildLendWithdraw, lend_repay: buildLendRepay, flash_loan_bundle: buildFlashLoanBundle
}
