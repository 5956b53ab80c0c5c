import { Keypair, SystemInstruction, SystemProgram, Transaction } from "@solana/web3.js"
import { Either, ParseResult, Schema } from "effect"
import { TransferSolIntent } from "../../schemas/intent.js"
import { describe, expect, it } from "vitest"
import { buildTransferSol, checkRentExemptTransfer, type TransferSolChainFacts } from "../../src/protocols/systemProgram/systemProgram.js"

const wallet = Keypair.generate()
const destination = Keypair.generate().publicKey.toBase58()
const MIN = 890_880n
const unfunded: TransferSolChainFacts = { destinationExists: false, destinationLamports: 0n, rentExemptMinimum: MIN }
const funded: TransferSolChainFacts = { destinationExists: true, destinationLamports: 1_000_000n, rentExemptMinimum: MIN }

/** Intents reach the builder decoded by their schema (the registry decodes them once). */
const built = (raw: Record<string, unknown>, chain: TransferSolChainFacts = funded) =>
  buildTransferSol({ wallet: wallet.publicKey, intent: Schema.decodeUnknownSync(TransferSolIntent)(raw), chain })
const schemaProblem = (raw: unknown) => {
  const result = Schema.decodeUnknownEither(TransferSolIntent)(raw)
  if (Either.isRight(result)) throw new Error("expected the schema to refuse")
  return ParseResult.ArrayFormatter.formatErrorSync(result.left)[0]?.path.join(".")
}

describe("checkRentExemptTransfer", () => {
  const check = (lamports: bigint, over: Partial<TransferSolChainFacts> = {}) =>
    checkRentExemptTransfer({ destination: "D", lamports, ...unfunded, ...over })

  it("refuses 890,879 lamports to an unfunded destination and accepts 890,880", () => {
    expect(check(890_879n)).toBe("transfer of 890879 lamports to unfunded destination D is below the rent-exempt minimum 890880")
    expect(check(890_880n)).toBeNull()
  })

  it("accepts any amount to a destination already at the minimum", () => {
    expect(check(1n, { destinationExists: true, destinationLamports: MIN })).toBeNull()
  })

  it("needs a below-minimum existing destination to reach the minimum", () => {
    expect(check(10n, { destinationExists: true, destinationLamports: MIN - 11n })).toMatch(/would leave destination D at 890879 lamports/)
    expect(check(11n, { destinationExists: true, destinationLamports: MIN - 11n })).toBeNull()
  })
})

describe("buildTransferSol", () => {
  it("builds one System transfer and reports facts and program ids", () => {
    const result = built({ destination, lamports: 1_500_000 })
    if (Either.isLeft(result)) throw result.left
    const { instructions, programIds, facts, extraSigners } = result.right
    expect(instructions).toHaveLength(1)
    expect(programIds).toEqual([SystemProgram.programId.toBase58()])
    expect(extraSigners).toEqual([])
    expect(facts).toEqual({ destination, tokenMint: null, amountLamports: 1_500_000n, tokenAmount: null })

    // compile, serialize, read back: the wire transaction is what we meant
    const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: "11111111111111111111111111111111" }).add(...instructions)
    tx.sign(wallet)
    const decoded = Transaction.from(tx.serialize())
    expect(decoded.instructions[0].programId.equals(SystemProgram.programId)).toBe(true)
    const params = SystemInstruction.decodeTransfer(decoded.instructions[0])
    expect(params.fromPubkey.equals(wallet.publicKey)).toBe(true)
    expect(params.toPubkey.toBase58()).toBe(destination)
    expect(BigInt(params.lamports)).toBe(1_500_000n)
  })

  it("accepts lamports as a decimal string", () => {
    expect(Either.isRight(built({ destination, lamports: "1000" }))).toBe(true)
  })

  it("fails closed at the rent boundary for an unfunded destination", () => {
    const low = built({ destination, lamports: 890_879 }, unfunded)
    expect(Either.isLeft(low) && low.left.message).toBe(
      `transfer of 890879 lamports to unfunded destination ${destination} is below the rent-exempt minimum 890880`
    )
    expect(Either.isRight(built({ destination, lamports: 890_880 }, unfunded))).toBe(true)
  })

  it.each([
    [{ lamports: 1 }, "destination"],
    [{ destination: "not-base58!", lamports: 1 }, "destination"],
    [{ destination, lamports: 0 }, "lamports"],
    [{ destination, lamports: 1.5 }, "lamports"],
    [{ destination, lamports: "-5" }, "lamports"],
    [{ destination, lamports: "18446744073709551616" }, "lamports"]
  ])("never sees %j: the intent schema refuses it, naming %s", (intent, field) => {
    expect(schemaProblem(intent)).toBe(field)
  })

  it("refuses a transfer to the wallet itself with a readable message", () => {
    const result = built({ destination: wallet.publicKey.toBase58(), lamports: 1 })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left._tag).toBe("AdapterInputError")
      expect(result.left.message).toBe(
        "intent.destination is the wallet's own address: a transfer to itself moves no lamports and only pays the fee; send to another address"
      )
      expect(result.left.protocol).toBe("system-program")
    }
  })
})
