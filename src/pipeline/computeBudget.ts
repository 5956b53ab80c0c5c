import { ComputeBudgetProgram, type TransactionInstruction } from "@solana/web3.js"
import type { AdapterOperation } from "../protocols/transactionTypes.js"

export const COMPUTE_UNIT_LIMIT_MIN = 100_000
export const COMPUTE_UNIT_LIMIT_MAX = 1_200_000
export const COMPUTE_UNITS_PER_EXTRA_INSTRUCTION = 15_000

/**
 * Base compute units per type. The first ten are the spec's; the rest are our [n16]
 * decisions (docs/decisions/pipeline.md): each sits next to the spec base of the
 * operation it most resembles, rounded up, so the limit errs on the generous side.
 */
export const COMPUTE_UNIT_BASE: Readonly<Record<AdapterOperation, number>> = {
  // spec
  transfer_sol: 120_000,
  transfer_spl: 180_000,
  swap: 380_000,
  stake: 240_000,
  unstake: 240_000,
  lend_supply: 320_000,
  lend_borrow: 350_000,
  create_escrow: 320_000,
  accept_escrow: 280_000,
  release_escrow: 260_000,
  // [n16] decisions
  create_mint: 150_000,
  mint_token: 180_000,
  refund_escrow: 260_000,
  dispute_escrow: 240_000,
  resolve_dispute: 280_000,
  create_milestone_escrow: 360_000,
  release_milestone: 280_000,
  x402_pay: 180_000,
  flash_loan_bundle: 600_000,
  cpi_call: 400_000,
  custom_instruction_bundle: 400_000,
  treasury_allocate: 120_000,
  treasury_rebalance: 200_000,
  nft_mint: 400_000,
  lend_withdraw: 350_000, // like lend_borrow: the health check over every position, a transfer out
  lend_repay: 320_000, // like lend_supply: a transfer in
  create_account: 120_000,
  // never submitted (read-only or simulated); the floor keeps the table total
  query_balance: COMPUTE_UNIT_LIMIT_MIN,
  query_positions: COMPUTE_UNIT_LIMIT_MIN,
  paper_trade: COMPUTE_UNIT_LIMIT_MIN,
  quote: COMPUTE_UNIT_LIMIT_MIN
}

/**
 * Compute unit limit for a transaction of `type` whose adapter built `instructionCount`
 * instructions (the two compute budget instructions are NOT counted: they are added after).
 */
export const computeUnitLimit = (type: AdapterOperation, instructionCount: number): number => {
  if (!Number.isSafeInteger(instructionCount) || instructionCount < 0) {
    throw new RangeError(`instructionCount must be a non-negative integer, got ${instructionCount}`)
  }
  const extra = Math.max(0, instructionCount - 1) * COMPUTE_UNITS_PER_EXTRA_INSTRUCTION
  const raw = COMPUTE_UNIT_BASE[type] + extra
  return Math.min(COMPUTE_UNIT_LIMIT_MAX, Math.max(COMPUTE_UNIT_LIMIT_MIN, raw))
}

/** The two compute budget instructions, in the order they go at the head of the transaction. */
export const computeBudgetInstructions = (
  computeUnits: number,
  microLamportsPerComputeUnit: bigint
): [TransactionInstruction, TransactionInstruction] => {
  if (microLamportsPerComputeUnit < 0n) {
    throw new RangeError(`priority fee must be non-negative, got ${microLamportsPerComputeUnit}`)
  }
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units: computeUnits }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: microLamportsPerComputeUnit })
  ]
}

/** Prepends the compute budget to an adapter's instructions: limit, price, then the rest. */
export const withComputeBudget = (
  type: AdapterOperation,
  instructions: ReadonlyArray<TransactionInstruction>,
  microLamportsPerComputeUnit: bigint
): { instructions: TransactionInstruction[]; computeUnitLimit: number } => {
  const units = computeUnitLimit(type, instructions.length)
  return {
    instructions: [...computeBudgetInstructions(units, microLamportsPerComputeUnit), ...instructions],
    computeUnitLimit: units
  }
}

/** Lamports the priority fee costs at most: ceil(limit × price / 1,000,000). */
export const maxPriorityFeeLamports = (computeUnits: number, microLamportsPerComputeUnit: bigint): bigint => {
  const micro = BigInt(computeUnits) * microLamportsPerComputeUnit
  return (micro + 999_999n) / 1_000_000n
}
