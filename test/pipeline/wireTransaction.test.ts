import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction
} from "@solana/web3.js"
import { createInitializeMint2Instruction, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import bs58 from "bs58"
import { describe, expect, it } from "vitest"
import { assembleTransaction, compileLegacyMessage, feePayerOf } from "../../src/pipeline/wireTransaction.js"

const blockhash = Keypair.generate().publicKey.toBase58()
const web3Message = (payer: PublicKey, instructions: Array<TransactionInstruction>) =>
  new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions }).compileToLegacyMessage()

describe("the pipeline's wire format", () => {
  const payer = Keypair.generate()
  const destination = Keypair.generate().publicKey
  const mint = Keypair.generate()

  const cases: Record<string, Array<TransactionInstruction>> = {
    "a transfer after the compute budget instructions": [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 450 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: destination, lamports: 123_456 })
    ],
    "a new mint that signs, used writable then readonly": [
      SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: mint.publicKey, lamports: 1_461_600, space: 82, programId: TOKEN_PROGRAM_ID }),
      createInitializeMint2Instruction(mint.publicKey, 6, payer.publicKey, null)
    ],
    "a key first readonly, then writable, and a readonly signer": [
      new TransactionInstruction({
        programId: SystemProgram.programId,
        keys: [
          { pubkey: destination, isSigner: false, isWritable: false },
          { pubkey: mint.publicKey, isSigner: true, isWritable: false }
        ],
        data: Buffer.from([1, 2, 3])
      }),
      new TransactionInstruction({ programId: TOKEN_PROGRAM_ID, keys: [{ pubkey: destination, isSigner: false, isWritable: true }], data: Buffer.alloc(0) })
    ]
  }

  for (const [name, instructions] of Object.entries(cases)) {
    it(`compiles ${name} to exactly the bytes web3.js compiles`, () => {
      const ours = compileLegacyMessage(payer.publicKey, blockhash, instructions)
      expect(ours.toString("hex")).toBe(Buffer.from(web3Message(payer.publicKey, instructions).serialize()).toString("hex"))
    })
  }

  it("assembles a signed transaction exactly as web3.js serializes it, and names the fee payer", () => {
    const instructions = cases["a new mint that signs, used writable then readonly"]
    const message = web3Message(payer.publicKey, instructions)
    const signed = new VersionedTransaction(message)
    signed.sign([payer, mint])
    const signatures = { [payer.publicKey.toBase58()]: bs58.encode(signed.signatures[0]), [mint.publicKey.toBase58()]: signed.signatures[1] }
    const messageBase64 = Buffer.from(message.serialize()).toString("base64")
    expect(assembleTransaction(messageBase64, signatures).toString("hex")).toBe(Buffer.from(signed.serialize()).toString("hex"))
    expect(feePayerOf(messageBase64)).toBe(payer.publicKey.toBase58())
  })

  it("leaves a missing signature as zeros (for simulation) and refuses a signature of a non-signer", () => {
    const instructions = cases["a transfer after the compute budget instructions"]
    const messageBase64 = compileLegacyMessage(payer.publicKey, blockhash, instructions).toString("base64")
    const unsigned = assembleTransaction(messageBase64, {})
    expect(unsigned[0]).toBe(1)
    expect(unsigned.subarray(1, 65).every((byte) => byte === 0)).toBe(true)
    expect(unsigned.subarray(65).toString("base64")).toBe(messageBase64)
    expect(() => assembleTransaction(messageBase64, { [destination.toBase58()]: new Uint8Array(64) })).toThrow(/not a signer/)
  })
})
