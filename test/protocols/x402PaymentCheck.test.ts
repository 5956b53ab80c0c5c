/**
 * The built x402 payment is checked against the requirement before simulation (pure): one
 * TransferChecked of the required amount and asset from the wallet to the payee, plus compute budget
 * and memo, the fee paid by the facilitator; anything else is refused.
 */
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { MEMO_PROGRAM } from "../../src/gasless/gaslessRules.js"
import { viewMessage } from "../../src/protocols/messageView.js"
import { paymentMismatch } from "../../src/protocols/x402/paymentCheck.js"

const wallet = Keypair.generate().publicKey
const payTo = Keypair.generate().publicKey
const asset = Keypair.generate().publicKey
const facilitator = Keypair.generate().publicKey
const expected = { wallet: wallet.toBase58(), payTo: payTo.toBase58(), asset: asset.toBase58(), amount: 10_000n }

const transfer = (amount: bigint, to: PublicKey = payTo) =>
  createTransferCheckedInstruction(getAssociatedTokenAddressSync(asset, wallet), asset, getAssociatedTokenAddressSync(asset, to, true), wallet, amount, 6)
const memo = new TransactionInstruction({ programId: new PublicKey(MEMO_PROGRAM), keys: [], data: Buffer.from("nonce") })
const message = (instructions: Array<TransactionInstruction>, payer: PublicKey = facilitator) =>
  viewMessage(new TransactionMessage({ payerKey: payer, recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions }).compileToV0Message().serialize())

describe("x402 payment check", () => {
  it("accepts the exact scheme's shape", () => {
    expect(paymentMismatch(message([ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }), transfer(10_000n), memo]), expected)).toBeNull()
  })

  it("refuses another amount, another payee, extra instructions, two transfers, or the wallet as fee payer", () => {
    expect(paymentMismatch(message([transfer(10_001n)]), expected)).toContain("not the required 10000")
    expect(paymentMismatch(message([transfer(10_000n, Keypair.generate().publicKey)]), expected)).toContain("payee's token account")
    expect(paymentMismatch(message([transfer(10_000n), SystemProgram.transfer({ fromPubkey: wallet, toPubkey: payTo, lamports: 1 })]), expected)).toContain("not part of an x402 payment")
    expect(paymentMismatch(message([transfer(10_000n), transfer(10_000n)]), expected)).toContain("2 transfers")
    expect(paymentMismatch(message([memo]), expected)).toContain("0 transfers")
    expect(paymentMismatch(message([transfer(10_000n)], wallet), expected)).toContain("fee")
  })
})
