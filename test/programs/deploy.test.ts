// The committed escrow.so deploys through the real upgradeable loader (buffer, writes, deploy) and then runs.
import { readFileSync } from "node:fs"
import { Keypair, PublicKey, SystemProgram, SYSVAR_CLOCK_PUBKEY, SYSVAR_RENT_PUBKEY, TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { createEscrowInstruction, decodeEscrowState, escrowAddress } from "../../src/protocols/escrow/index.js"
import { ESCROW_SO } from "./escrowFixture.js"
import { TestLedger } from "./ledger.js"

const LOADER = new PublicKey("BPFLoaderUpgradeab1e11111111111111111111111")
const BUFFER_HEADER = 37 // enum tag u32 + Option<authority>
const PROGRAM_ACCOUNT_SIZE = 36 // enum tag u32 + programdata address
const CHUNK = 900

const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n)
  return b
}
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(n)
  return b
}

/** Deploys `program` the way `solana program deploy` does; returns the new program id. */
const deploy = (ledger: TestLedger, program: Uint8Array): PublicKey => {
  const payer = ledger.payer
  const buffer = Keypair.generate()
  const programKeypair = Keypair.generate()
  const bufferSize = BUFFER_HEADER + program.length
  const expectOk = (r: ReturnType<TestLedger["send"]>) => expect(r.ok, r.failure).toBe(true)

  expectOk(ledger.send([
    SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: buffer.publicKey, lamports: Number(ledger.rentExempt(bufferSize)), space: bufferSize, programId: LOADER }),
    new TransactionInstruction({ programId: LOADER, keys: [{ pubkey: buffer.publicKey, isSigner: false, isWritable: true }, { pubkey: payer.publicKey, isSigner: false, isWritable: false }], data: u32(0) })
  ], [buffer]))
  for (let offset = 0; offset < program.length; offset += CHUNK) {
    const bytes = Buffer.from(program.subarray(offset, offset + CHUNK))
    expectOk(ledger.send([new TransactionInstruction({
      programId: LOADER,
      keys: [{ pubkey: buffer.publicKey, isSigner: false, isWritable: true }, { pubkey: payer.publicKey, isSigner: true, isWritable: false }],
      data: Buffer.concat([u32(1), u32(offset), u64(BigInt(bytes.length)), bytes])
    })]))
  }
  const [programData] = PublicKey.findProgramAddressSync([programKeypair.publicKey.toBuffer()], LOADER)
  expectOk(ledger.send([
    SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: programKeypair.publicKey, lamports: Number(ledger.rentExempt(PROGRAM_ACCOUNT_SIZE)), space: PROGRAM_ACCOUNT_SIZE, programId: LOADER }),
    new TransactionInstruction({
      programId: LOADER,
      keys: [
        { pubkey: payer.publicKey, isSigner: true, isWritable: true },
        { pubkey: programData, isSigner: false, isWritable: true },
        { pubkey: programKeypair.publicKey, isSigner: false, isWritable: true },
        { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
        { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false },
        { pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false },
        { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        { pubkey: payer.publicKey, isSigner: true, isWritable: false }
      ],
      data: Buffer.concat([u32(2), u64(BigInt(program.length))])
    })
  ], [programKeypair]))
  return programKeypair.publicKey
}

describe("escrow.so through the upgradeable loader", () => {
  it("deploys, and the deployed program creates an escrow", () => {
    const ledger = new TestLedger()
    const now = 1_700_000_000n
    ledger.setUnixTimestamp(now)
    const programId = deploy(ledger, readFileSync(ESCROW_SO))
    ledger.setUnixTimestamp(now + 1n) // a program deployed in a slot runs from the next one

    const creator = ledger.newFundedKeypair()
    const args = {
      programId,
      creator: creator.publicKey,
      escrowId: 7n,
      counterparty: Keypair.generate().publicKey,
      arbiter: Keypair.generate().publicKey,
      feeRecipient: Keypair.generate().publicKey,
      amount: 1_000_000n,
      deadlineUnixSec: now + 60n,
      feeBps: 100,
      termsHash: new Uint8Array(32)
    }
    const result = ledger.send([createEscrowInstruction(args)], [creator])
    expect(result.ok, result.failure).toBe(true)
    const data = ledger.data(escrowAddress(args))
    expect(data && decodeEscrowState(data).status).toBe("created")
  })
})
