/**
 * The lamports an intent spends from its wallet, which is what an agent's budget counts. Only SOL
 * outflows count: token amounts are not lamports, read-only and bookkeeping intents (treasury, paper
 * trades) move nothing on chain. The delta guard's outflow types use its own reading of the amount.
 */
import type { TransactionType } from "../../schemas/intent.js"
import { DELTA_DIRECTION, expectedAmountLamports } from "./deltaGuard.js"
import { rawIntentSystemOutflow } from "../protocols/rawInstructions.js"

const positive = (raw: unknown): bigint => {
  if (typeof raw === "bigint") return raw > 0n ? raw : 0n
  if (typeof raw === "number" && Number.isSafeInteger(raw) && raw > 0) return BigInt(raw)
  if (typeof raw === "string" && /^\d+$/.test(raw)) return BigInt(raw)
  return 0n
}

/**
 * Wrapped SOL: a lending supply or repay of it spends lamports (a repay at most its amount: the program caps it
 * at the debt); of any other mint, tokens (docs/decisions/lending.md).
 */
const WRAPPED_SOL_MINT = "So11111111111111111111111111111111111111112"

export const intentSpendLamports = (type: TransactionType, intent: Readonly<Record<string, unknown>>): bigint => {
  if (type === "lend_supply" || type === "lend_repay") return intent.mint === WRAPPED_SOL_MINT ? positive(intent.amount) : 0n
  if (DELTA_DIRECTION[type] === "outflow") return expectedAmountLamports(intent) ?? 0n
  // x402: the most the payment may cost, in the asset's base units (docs/decisions/x402.md).
  if (type === "x402_pay") return positive(intent.maxAmount)
  // raw instructions: the SOL their System transfers send (docs/decisions/instruction-bundles.md)
  if (type === "cpi_call") return rawIntentSystemOutflow([intent])
  if ((type === "custom_instruction_bundle" || type === "flash_loan_bundle") && Array.isArray(intent.instructions)) return rawIntentSystemOutflow(intent.instructions)
  if (type === "create_milestone_escrow" && Array.isArray(intent.milestones)) {
    return intent.milestones.reduce<bigint>(
      (sum, milestone: unknown) =>
        sum + (typeof milestone === "object" && milestone !== null ? positive((milestone as { amount?: unknown }).amount) : 0n),
      0n
    )
  }
  return 0n
}
