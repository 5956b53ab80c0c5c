// Transaction fees as the runtime charges them: 5000 lamports per signature plus the priority fee
// (compute-unit price in micro-lamports x compute-unit limit, rounded up). Measured against litesvm:
// a transfer with price 1,000,000 and limit 10,000 is charged 15,000 lamports.
import type { ParsedMessage } from "./wireTransaction.js"

export const LAMPORTS_PER_SIGNATURE = 5000
export const COMPUTE_BUDGET_PROGRAM_ID = "ComputeBudget111111111111111111111111111111"
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000

export interface ComputeBudgetRequest {
  /** Compute-unit price in micro-lamports (0 when the transaction sets none). */
  readonly microLamportsPerUnit: bigint
  readonly unitLimit: number
}

export function computeBudgetOf(message: ParsedMessage): ComputeBudgetRequest {
  let price = 0n
  let limit: number | null = null
  let otherInstructions = 0
  for (const ix of message.instructions) {
    if (message.staticKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM_ID) {
      otherInstructions++
      continue
    }
    const data = ix.data
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength)
    if (data[0] === 2 && data.length === 5) limit = dv.getUint32(1, true)
    if (data[0] === 3 && data.length === 9) price = dv.getBigUint64(1, true)
  }
  const unitLimit = Math.min(limit ?? otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION, MAX_COMPUTE_UNIT_LIMIT)
  return { microLamportsPerUnit: price, unitLimit }
}

export function feeForMessage(message: ParsedMessage): number {
  const { microLamportsPerUnit, unitLimit } = computeBudgetOf(message)
  const priority = (microLamportsPerUnit * BigInt(unitLimit) + 999_999n) / 1_000_000n
  return message.header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority)
}

/** Per-slot minimum prioritization fee, the figure getRecentPrioritizationFees reports. */
export class PriorityFeeTracker {
  private readonly minBySlot = new Map<number, number>()

  record(slot: number, microLamportsPerUnit: bigint): void {
    const fee = Number(microLamportsPerUnit)
    const current = this.minBySlot.get(slot)
    if (current === undefined || fee < current) this.minBySlot.set(slot, fee)
    if (this.minBySlot.size > 300) {
      const oldest = this.minBySlot.keys().next()
      if (!oldest.done) this.minBySlot.delete(oldest.value)
    }
  }

  /** The last `count` slots up to `currentSlot`, oldest first; slots without transactions report 0. */
  recent(currentSlot: number, count = 150): Array<{ slot: number; prioritizationFee: number }> {
    const out: Array<{ slot: number; prioritizationFee: number }> = []
    for (let slot = Math.max(0, currentSlot - count + 1); slot <= currentSlot; slot++) {
      out.push({ slot, prioritizationFee: this.minBySlot.get(slot) ?? 0 })
    }
    return out
  }
}
