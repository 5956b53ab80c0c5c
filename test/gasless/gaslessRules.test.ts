/**
 * What the relay refuses and what the pipeline refuses at policy for gasless intents (pure), on real
 * message bytes compiled by web3.js.
 */
import { createAssociatedTokenAccountInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { ComputeBudgetProgram, Keypair, SystemProgram, TransactionMessage, type TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { DEFAULT_ALLOWED_PROGRAMS, feeLamports, relayRefusals, unsupportedForGasless } from "../../src/gasless/gaslessRules.js"
import { viewMessage } from "../../src/protocols/messageView.js"

const relay = Keypair.generate().publicKey
const user = Keypair.generate().publicKey
const mint = Keypair.generate().publicKey

const view = (instructions: Array<TransactionInstruction>, payer = relay, v0 = false) => {
  const message = new TransactionMessage({ payerKey: payer, recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions })
  return viewMessage(v0 ? message.compileToV0Message().serialize() : message.compileToLegacyMessage().serialize())
}
const limits = { feePayer: relay.toBase58(), allowedPrograms: DEFAULT_ALLOWED_PROGRAMS, maxFeeLamports: 20_000n, maxSignatures: 4 }
const tokenTransfer = createTransferInstruction(getAssociatedTokenAddressSync(mint, user), getAssociatedTokenAddressSync(mint, relay), user, 5)

describe("gasless rules", () => {
  it("accepts a token transfer the user authorizes, legacy or v0; the fee counts signatures and priority", () => {
    for (const v0 of [false, true]) {
      const transfer = view([ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }), tokenTransfer], relay, v0)
      expect(relayRefusals(transfer, limits)).toEqual([])
      expect(feeLamports(transfer)).toBe(2n * 5_000n + 10_000n)
    }
  })

  it("refuses account creation, token account initialization, other fee payers, the fee payer as a source, unknown programs and high fees", () => {
    const created = Keypair.generate().publicKey
    const createAccount = view([SystemProgram.createAccount({ fromPubkey: user, newAccountPubkey: created, lamports: 1, space: 0, programId: SystemProgram.programId })])
    expect(unsupportedForGasless(createAccount)).toEqual(["instruction 0 creates an account that needs a rent deposit"])
    const ata = view([createAssociatedTokenAccountInstruction(user, getAssociatedTokenAddressSync(mint, created), created, mint)])
    expect(unsupportedForGasless(ata).join()).toContain("token account initialization")
    expect(relayRefusals(view([tokenTransfer], user), limits).join()).toContain("must be the relay's signer")
    expect(relayRefusals(view([SystemProgram.transfer({ fromPubkey: relay, toPubkey: user, lamports: 1 })]), limits).join()).toContain("fee payer's account")
    const unknown = Keypair.generate().publicKey
    expect(relayRefusals(view([{ programId: unknown, keys: [], data: Buffer.alloc(0) }]), limits)).toEqual([`program ${unknown.toBase58()} is not allowed`])
    const pricey = view([ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }), tokenTransfer])
    expect(relayRefusals(pricey, limits).join()).toContain("exceeds the maximum 20000")
  })
})
