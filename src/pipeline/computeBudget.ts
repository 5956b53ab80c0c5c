import { ComputeBudgetProgram, type TransactionInstruction } from "@solana/web3.js"
import { TYPE_FACTS } from "../protocols/registry.js"
import type { AdapterOperation } from "../protocols/transactionTypes.js"

export const COMPUTE_UNIT_LIMIT_MIN = 100_000
export const COMPUTE_UNIT_LIMIT_MAX = 1_200_000
export const COMPUTE_UNITS_PER_EXTRA_INSTRUCTION = 15_000

/**
 * Compute unit limit for a transaction of `type` whose adapter built `instructionCount`
 * instructions (the two compute budget instructions are NOT counted: they are added after),
 * from the type's base (its facts) plus a share per further instruction.
 */
export const computeUnitLimit = (type: AdapterOperation, instructionCount: number): number => {
  if (!Number.isSafeInteger(instructionCount) || instructionCount < 0) {
    throw new RangeError(`instructionCount must be a non-negative integer, got ${instructionCount}`)
  }
  const extra = Math.max(0, instructionCount - 1) * COMPUTE_UNITS_PER_EXTRA_INSTRUCTION
  const raw = TYPE_FACTS[type].computeUnitBase + extra
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
