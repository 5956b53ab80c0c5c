/**
 * The raw-instruction builder of cpi_call and custom_instruction_bundle: instructions built as given,
 * any signer but the wallet refused (naming the account's intent path), and the SOL its System
 * instructions send reported to policy as one destination and amount.
 */
import { ComputeBudgetProgram, Keypair, SystemProgram, type TransactionInstruction } from "@solana/web3.js"
import { Effect, Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { CustomInstructionBundleIntent, type InstructionSpec } from "../../schemas/intent.js"
import { intentSpendLamports } from "../../src/pipeline/intentSpend.js"
import { checkCompatibility } from "../../src/protocols/compatibility.js"
import { buildRawInstructions, type LocatedInstruction } from "../../src/protocols/rawInstructions.js"
import { findAdapter, protocolRegistry } from "../../src/protocols/registry.js"

const wallet = Keypair.generate().publicKey
const asSpec = (ix: TransactionInstruction): InstructionSpec => ({
  programId: ix.programId.toBase58(),
  accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  data: ix.data.toString("base64")
})
const transfer = (from: typeof wallet, lamports: number, to = Keypair.generate().publicKey) => asSpec(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports }))
const bundle = (specs: ReadonlyArray<InstructionSpec>): ReadonlyArray<LocatedInstruction> => specs.map((spec, i) => ({ spec, at: `instructions[${i}].` }))
const build = (specs: ReadonlyArray<InstructionSpec>) => Effect.runSync(Effect.either(buildRawInstructions("custom_instruction_bundle", "system-program", wallet, bundle(specs))))

describe("raw instructions", () => {
  it("builds the instructions as given and reports the SOL sent to one recipient", () => {
    const to = Keypair.generate().publicKey
    const memo = { programId: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr", accounts: [{ pubkey: wallet.toBase58(), isSigner: true, isWritable: false }], data: Buffer.from("hi").toString("base64") }
    const built = build([transfer(wallet, 700, to), memo, transfer(wallet, 300, to)])
    if (Either.isLeft(built)) throw built.left
    expect(built.right.instructions).toHaveLength(3)
    expect(built.right.instructions[1]?.data.toString()).toBe("hi")
    expect(built.right.instructions[1]?.keys).toEqual([{ pubkey: wallet, isSigner: true, isWritable: false }])
    expect(built.right.programIds).toEqual(["11111111111111111111111111111111", "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"])
    expect(built.right.facts).toMatchObject({ destination: to.toBase58(), amountLamports: 1000n })
    expect(built.right.extraSigners).toEqual([])
  })

  it("refuses any signer but the wallet, naming where it is", () => {
    const other = Keypair.generate().publicKey
    const refused = build([transfer(wallet, 1), transfer(other, 5)])
    expect(Either.isLeft(refused) && refused.left.field).toBe("instructions[1].accounts[0]")
    expect(Either.isLeft(refused) && refused.left.message).toContain(other.toBase58())
    // a signer flag on a non-first account is found too
    const spec = transfer(wallet, 1)
    const flagged = { ...spec, accounts: [spec.accounts[0]!, { ...spec.accounts[1]!, isSigner: true }] }
    expect(Either.isLeft(build([flagged]))).toBe(true)
  })

  it("refuses a compute budget instruction and a System Assign or Allocate of the wallet", () => {
    const budget = ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 })
    const refusedBudget = build([transfer(wallet, 1), asSpec(budget)])
    expect(Either.isLeft(refusedBudget) && refusedBudget.left.message).toContain("intent.instructions[1].programId: the compute budget")
    const assign = build([asSpec(SystemProgram.assign({ accountPubkey: wallet, programId: Keypair.generate().publicKey }))])
    expect(Either.isLeft(assign) && assign.left.message).toContain("System Assign of the wallet")
    const allocate = build([asSpec(SystemProgram.allocate({ accountPubkey: wallet, space: 100 }))])
    expect(Either.isLeft(allocate) && allocate.left.message).toContain("System Allocate of the wallet")
  })

  it("refuses System transfers to more than one recipient (policy sees one destination)", () => {
    const refused = build([transfer(wallet, 1), transfer(wallet, 2)])
    expect(Either.isLeft(refused) && refused.left.message).toContain("2 recipients")
  })

  it("decodes the bundle payload: 1-16 instructions, base64 data, flags required", () => {
    const spec = transfer(wallet, 1)
    expect(() => Schema.decodeUnknownSync(CustomInstructionBundleIntent)({ instructions: [] })).toThrow(/1-16/)
    expect(() => Schema.decodeUnknownSync(CustomInstructionBundleIntent)({ instructions: [{ ...spec, data: "not base64!" }] })).toThrow(/base64/)
    expect(() => Schema.decodeUnknownSync(CustomInstructionBundleIntent)({ instructions: [{ ...spec, accounts: [{ pubkey: wallet.toBase58(), isSigner: true }] }] })).toThrow(/isWritable/)
  })

  it("is compatible with any protocol (its programs are the caller's); other types keep their capabilities", () => {
    const registry = protocolRegistry()
    const spec = transfer(wallet, 1)
    for (const protocol of ["system-program", "escrow", "lending-market"]) {
      const adapter = findAdapter(registry, protocol)!
      expect(checkCompatibility(adapter, { type: "cpi_call", intent: spec })).toMatchObject({ compatible: true, errors: [], warnings: [] })
      expect(checkCompatibility(adapter, { type: "custom_instruction_bundle", intent: { instructions: [spec] } }).compatible).toBe(true)
    }
    expect(checkCompatibility(findAdapter(registry, "system-program")!, { type: "cpi_call", intent: { ...spec, programId: 7 } }).errors).toEqual([
      "intent.programId must be a base58 address"
    ])
    expect(checkCompatibility(findAdapter(registry, "system-program")!, { type: "nft_mint", intent: {} }).compatible).toBe(false)
  })

  it("counts the SOL its System instructions send against an agent's budget", () => {
    const memo = { programId: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr", accounts: [], data: "aGk=" }
    expect(intentSpendLamports("cpi_call", transfer(wallet, 1234))).toBe(1234n)
    expect(intentSpendLamports("custom_instruction_bundle", { instructions: [transfer(wallet, 1000), memo, transfer(wallet, 500)] })).toBe(1500n)
    // a flash loan's caller instructions count the same; a lending supply counts only when it supplies SOL (wrapped)
    expect(intentSpendLamports("flash_loan_bundle", { mint: "So11111111111111111111111111111111111111112", amount: "5000", instructions: [transfer(wallet, 700), memo] })).toBe(700n)
    expect(intentSpendLamports("lend_supply", { mint: "So11111111111111111111111111111111111111112", amount: "2000000000" })).toBe(2_000_000_000n)
    expect(intentSpendLamports("lend_supply", { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", amount: "2000000000" })).toBe(0n)
    // a repay spends at most its amount (SOL only); a withdraw brings funds back and spends nothing
    expect(intentSpendLamports("lend_repay", { mint: "So11111111111111111111111111111111111111112", amount: "300000000" })).toBe(300_000_000n)
    expect(intentSpendLamports("lend_repay", { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", amount: "300000000" })).toBe(0n)
    expect(intentSpendLamports("lend_withdraw", { mint: "So11111111111111111111111111111111111111112", amount: "300000000" })).toBe(0n)
    expect(intentSpendLamports("cpi_call", memo)).toBe(0n)
  })
})
