/** The lending-market adapter: supply and borrow, their way out (withdraw, repay), and flash loans from its reserves. */
import { req } from "../intentRequirements.js"
import { protocolAdapter } from "../protocolAdapter.js"
import { rawIntentSystemOutflow } from "../rawInstructions.js"
import { noSpend, positiveAmount, recordedOutflow } from "../typeFacts.js"
import { lendingBuilders } from "./builders.js"
import { describeLendingFailure } from "./errors.js"
import * as lending from "./instructions.js"
import { LENDING_MARKET_PROGRAM_ID_SETTING } from "./lendingIds.js"

/**
 * Wrapped SOL: a supply or repay of it spends lamports (a repay at most its amount: the program caps it
 * at the debt); of any other mint, tokens (docs/decisions/lending.md).
 */
const WRAPPED_SOL_MINT = "So11111111111111111111111111111111111111112"
const wrappedSolSpend = (intent: Readonly<Record<string, unknown>>): bigint =>
  intent.mint === WRAPPED_SOL_MINT ? positiveAmount(intent.amount) : 0n

const lendFields = { mint: req("address"), amount: req("amount") }
const obligation = { indexer: "lendingObligation" } as const

export const lendingMarketAdapter = protocolAdapter({
  protocol: "lending-market",
  // flash_loan_bundle borrows from this market's reserves (docs/decisions/lending.md), so it is listed with the spec's two
  capabilities: ["lend_supply", "lend_borrow", "lend_withdraw", "lend_repay", "flash_loan_bundle"],
  programIds: (ids) => [ids.lendingMarket],
  ownPrograms: [{
    program: "lendingMarket", setting: LENDING_MARKET_PROGRAM_ID_SETTING, label: "Lending market program", tag: "lending-market",
    instructions: {
      [lending.IX_INIT_RESERVE]: "initialize_reserve", [lending.IX_SUPPLY]: "supply", [lending.IX_BORROW]: "borrow", [lending.IX_FLASH_BORROW]: "flash_borrow",
      [lending.IX_FLASH_REPAY]: "flash_repay", [lending.IX_WITHDRAW]: "withdraw", [lending.IX_REPAY]: "repay"
    }
  }],
  builders: lendingBuilders,
  describeFailure: (logs, [programId]) => describeLendingFailure(logs, programId),
  facts: {
    lend_supply: {
      computeUnitBase: 320_000, riskTier: "medium", spendLamports: wrappedSolSpend,
      // its SOL outflow is what its build recorded (SOL supplied, a new obligation's rent): its intent amount is
      // in the mint's base units, not lamports; none recorded (a token supply) means no check
      deltaGuard: { direction: "outflow", confirmed: recordedOutflow },
      positions: obligation, intentFields: lendFields
    },
    lend_borrow: { computeUnitBase: 350_000, riskTier: "medium", spendLamports: noSpend, positions: obligation, intentFields: lendFields },
    // like lend_borrow: the health check over every position, a transfer out
    lend_withdraw: { computeUnitBase: 350_000, riskTier: "medium", spendLamports: noSpend, positions: obligation, intentFields: lendFields },
    // like lend_supply: a transfer in
    lend_repay: { computeUnitBase: 320_000, riskTier: "medium", spendLamports: wrappedSolSpend, positions: obligation, intentFields: lendFields },
    flash_loan_bundle: {
      computeUnitBase: 600_000, riskTier: "critical",
      // the SOL its own System transfers send (docs/decisions/instruction-bundles.md)
      spendLamports: (intent) => (Array.isArray(intent.instructions) ? rawIntentSystemOutflow(intent.instructions) : 0n)
    }
  }
})
