import { ComputeBudgetInstruction, ComputeBudgetProgram, SystemProgram, Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import {
  computeBudgetInstructions,
  computeUnitLimit,
  maxPriorityFeeLamports,
  withComputeBudget
} from "../../src/pipeline/computeBudget.js"
import { TYPE_FACTS } from "../../src/protocols/registry.js"
import { TRANSACTION_TYPES } from "../../src/protocols/transactionTypes.js"

describe("computeUnitLimit", () => {
  it("uses the spec bases for one instruction", () => {
    expect(computeUnitLimit("transfer_sol", 1)).toBe(120_000)
    expect(computeUnitLimit("transfer_spl", 1)).toBe(180_000)
    expect(computeUnitLimit("swap", 1)).toBe(380_000)
    expect(computeUnitLimit("stake", 1)).toBe(240_000)
    expect(computeUnitLimit("unstake", 1)).toBe(240_000)
    expect(computeUnitLimit("lend_supply", 1)).toBe(320_000)
    expect(computeUnitLimit("lend_borrow", 1)).toBe(350_000)
    expect(computeUnitLimit("lend_withdraw", 1)).toBe(350_000)
    expect(computeUnitLimit("lend_repay", 1)).toBe(320_000)
    expect(computeUnitLimit("create_escrow", 1)).toBe(320_000)
    expect(computeUnitLimit("accept_escrow", 1)).toBe(280_000)
    expect(computeUnitLimit("release_escrow", 1)).toBe(260_000)
  })

  it("adds 15,000 per instruction beyond the first", () => {
    expect(computeUnitLimit("transfer_spl", 2)).toBe(195_000)
    expect(computeUnitLimit("swap", 5)).toBe(380_000 + 4 * 15_000)
  })

  it("treats zero instructions like one", () => {
    expect(computeUnitLimit("transfer_sol", 0)).toBe(120_000)
  })

  it("clamps to 1,200,000 at the top", () => {
    // swap: 380,000 + 15,000 × k reaches 1,200,000 at k = 54.67
    expect(computeUnitLimit("swap", 55)).toBe(380_000 + 54 * 15_000) // 1,190,000
    expect(computeUnitLimit("swap", 56)).toBe(1_200_000)
    expect(computeUnitLimit("swap", 10_000)).toBe(1_200_000)
  })

  it("clamps to 100,000 at the bottom", () => {
    expect(computeUnitLimit("query_balance", 1)).toBe(100_000)
  })

  it("has a base for every transaction type", () => {
    for (const type of TRANSACTION_TYPES) {
      expect(TYPE_FACTS[type].computeUnitBase).toBeGreaterThanOrEqual(100_000)
      expect(TYPE_FACTS[type].computeUnitBase).toBeLessThanOrEqual(1_200_000)
    }
  })

  it("rejects a negative instruction count", () => {
    expect(() => computeUnitLimit("transfer_sol", -1)).toThrow(RangeError)
  })
})

describe("compute budget instructions", () => {
  it("returns the limit then the price, both on the ComputeBudget program", () => {
    const [limit, price] = computeBudgetInstructions(195_000, 2_300n)
    expect(limit.programId.equals(ComputeBudgetProgram.programId)).toBe(true)
    expect(price.programId.equals(ComputeBudgetProgram.programId)).toBe(true)
    expect(ComputeBudgetInstruction.decodeInstructionType(limit)).toBe("SetComputeUnitLimit")
    expect(ComputeBudgetInstruction.decodeSetComputeUnitLimit(limit).units).toBe(195_000)
    expect(ComputeBudgetInstruction.decodeInstructionType(price)).toBe("SetComputeUnitPrice")
    expect(BigInt(ComputeBudgetInstruction.decodeSetComputeUnitPrice(price).microLamports)).toBe(2_300n)
  })

  it("puts the budget first and counts only the adapter's instructions", () => {
    const from = Keypair.generate().publicKey
    const to = Keypair.generate().publicKey
    const transfer = SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1 })
    const built = withComputeBudget("transfer_sol", [transfer, transfer], 5_000n)
    expect(built.computeUnitLimit).toBe(135_000)
    expect(built.instructions).toHaveLength(4)
    expect(ComputeBudgetInstruction.decodeInstructionType(built.instructions[0])).toBe("SetComputeUnitLimit")
    expect(ComputeBudgetInstruction.decodeInstructionType(built.instructions[1])).toBe("SetComputeUnitPrice")
    expect(built.instructions[2]).toBe(transfer)
  })

  it("prices the priority fee in lamports rounding up", () => {
    expect(maxPriorityFeeLamports(120_000, 2_000n)).toBe(240n)
    expect(maxPriorityFeeLamports(1, 1n)).toBe(1n)
    expect(maxPriorityFeeLamports(1_200_000, 200_000n)).toBe(240_000n)
  })
})
