// Every check of the escrow program refuses with its own custom error code and changes nothing.
import { readFileSync } from "node:fs"
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import {
  acceptEscrowInstruction, createEscrowInstruction, createMilestoneEscrowInstruction, ESCROW_ERRORS, escrowErrorMessage,
  releaseEscrowInstruction
} from "../../src/protocols/escrow/index.js"
import { EscrowFixture, START_TIME } from "./escrowFixture.js"

/** Rewrites some accounts' flags of a built instruction. */
const withKeys = (ix: TransactionInstruction, change: (keys: TransactionInstruction["keys"]) => TransactionInstruction["keys"]) =>
  new TransactionInstruction({ programId: ix.programId, keys: change(ix.keys.map((k) => ({ ...k }))), data: ix.data })

const withData = (ix: TransactionInstruction, data: Buffer) => new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data })

describe("escrow refusals: create", () => {
  const refusedCreate = (f: EscrowFixture, ix: TransactionInstruction, code: number, signers: Keypair[] = [f.creator]) => {
    const before = f.ledger.balance(f.creator.publicKey)
    const outcome = f.send([ix], signers)
    expect(outcome.customError, escrowErrorMessage(code)).toBe(code)
    expect(outcome.events).toEqual([])
    expect(f.ledger.balance(f.creator.publicKey)).toBe(before)
  }

  it("refuses bad terms", () => {
    const f = new EscrowFixture()
    refusedCreate(f, createEscrowInstruction(f.createArgs({ amount: 0n })), 6017)
    refusedCreate(f, createEscrowInstruction(f.createArgs({ feeBps: 1001 })), 6018)
    refusedCreate(f, createEscrowInstruction(f.createArgs({ deadlineUnixSec: START_TIME })), 6019)
    refusedCreate(f, createEscrowInstruction(f.createArgs({ counterparty: f.creator.publicKey })), 6032)
    refusedCreate(f, createEscrowInstruction(f.createArgs({ arbiter: f.counterparty.publicKey })), 6032)
    refusedCreate(f, createEscrowInstruction(f.createArgs({ amount: 60_000_000_000n })), 6036)
  })

  it("refuses malformed data, unknown instructions and missing accounts", () => {
    const f = new EscrowFixture()
    const ix = createEscrowInstruction(f.createArgs())
    refusedCreate(f, withData(ix, ix.data.subarray(0, 100)), 6000)
    refusedCreate(f, withData(ix, Buffer.from([42])), 6000)
    refusedCreate(f, withData(ix, Buffer.alloc(0)), 6000)
    refusedCreate(f, withKeys(ix, (keys) => keys.slice(0, 2)), 6029)
  })

  it("refuses a creator that did not sign, a wrong system program, and a wrong escrow address", () => {
    const f = new EscrowFixture()
    const args = f.createArgs()
    const ix = createEscrowInstruction(args)
    refusedCreate(f, withKeys(ix, ([creator, ...rest]) => [{ ...creator, isSigner: false }, ...rest]), 6013, [])
    refusedCreate(f, withKeys(ix, ([creator, escrow]) => [creator, escrow, { pubkey: f.stranger.publicKey, isSigner: false, isWritable: false }]), 6031)
    const otherEscrow = f.address(args.escrowId + 100n)
    refusedCreate(f, withKeys(ix, ([creator, , system]) => [creator, { pubkey: otherEscrow, isSigner: false, isWritable: true }, system]), 6014)
  })

  it("refuses creating the same (creator, id) twice", () => {
    const f = new EscrowFixture()
    const args = f.createArgs()
    expect(f.send([createEscrowInstruction(args)], [f.creator]).ok).toBe(true)
    f.ledger.svm.expireBlockhash()
    refusedCreate(f, createEscrowInstruction({ ...args, amount: args.amount + 1n }), 6015)
  })

  it("refuses bad milestones", () => {
    const f = new EscrowFixture()
    const base = (milestones: bigint[], amount = milestones.reduce((a, b) => a + b, 0n)) =>
      createMilestoneEscrowInstruction({ ...f.createArgs({ amount }), milestones })
    refusedCreate(f, base([100n, 200n], 301n), 6024)
    refusedCreate(f, base([100n, 0n, 200n]), 6033)
    refusedCreate(f, base([], 100n), 6023)
    const eight = base(Array.from({ length: 8 }, () => 10n))
    const nine = Buffer.concat([eight.data.subarray(0, 155), Buffer.from([9]), Buffer.alloc(9 * 8, 1)])
    refusedCreate(f, withData(eight, nine), 6023)
    refusedCreate(f, withData(eight, eight.data.subarray(0, eight.data.length - 1)), 6000)
  })
})

describe("escrow refusals: acting on an escrow", () => {
  it("refuses the wrong party for each operation", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    expect(f.accept(id, f.stranger).customError).toBe(6001)
    expect(f.accept(id, f.creator).customError).toBe(6001)
    expect(f.release(id).customError).toBe(6010) // not accepted yet
    expect(f.dispute(id).customError).toBe(6010)
    expect(f.resolve(id, "release").customError).toBe(6011)
    expect(f.refund(id, f.stranger).customError).toBe(6005)
    expect(f.refund(id, f.counterparty).customError).toBe(6005)
    f.accept(id)
    expect(f.accept(id).customError).toBe(6009)
    expect(f.release(id, f.counterparty).customError).toBe(6002)
    expect(f.release(id, f.stranger).customError).toBe(6002)
    expect(f.dispute(id, f.arbiter).customError).toBe(6003)
    expect(f.dispute(id, f.stranger).customError).toBe(6003)
    f.dispute(id)
    expect(f.resolve(id, "release", f.creator).customError).toBe(6004)
    expect(f.resolve(id, "refund", f.counterparty).customError).toBe(6004)
    expect(f.state(id).status).toBe("disputed")
  })

  it("refuses payee accounts that do not match the escrow, or are read-only", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.accept(id)
    const total = f.total(id)
    expect(f.release(id, f.creator, { counterparty: f.stranger.publicKey }).customError).toBe(6020)
    expect(f.release(id, f.creator, { feeRecipient: f.stranger.publicKey }).customError).toBe(6021)
    const readOnlyPayee = withKeys(
      releaseEscrowInstruction({ ...f.ref(id), authority: f.creator.publicKey, counterparty: f.counterparty.publicKey, feeRecipient: f.feeRecipient }),
      ([authority, escrow, counterparty, fee]) => [authority, escrow, { ...counterparty, isWritable: false }, fee]
    )
    expect(f.send([readOnlyPayee], [f.creator]).customError).toBe(6030)
    expect(f.total(id)).toBe(total)
    expect(f.state(id).status).toBe("accepted")
  })

  it("refuses an unsigned acting party", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    const unsigned = withKeys(acceptEscrowInstruction({ ...f.ref(id), counterparty: f.counterparty.publicKey }), ([party, escrow]) => [
      { ...party, isSigner: false },
      escrow
    ])
    expect(f.send([unsigned], []).customError).toBe(6013)
  })

  it("refuses an account that is not an escrow of this program", () => {
    const f = new EscrowFixture()
    const notEscrow = withKeys(acceptEscrowInstruction({ ...f.ref(1n), counterparty: f.counterparty.publicKey }), ([party]) => [
      party,
      { pubkey: f.stranger.publicKey, isSigner: false, isWritable: true }
    ])
    expect(f.send([notEscrow], [f.counterparty]).customError).toBe(6016)
    expect(f.accept(999n).customError).toBe(6016) // an escrow that was never created
  })

  it("refuses a resolve decision other than release or refund", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.accept(id)
    f.dispute(id)
    const ix = new TransactionInstruction({
      programId: f.programId,
      keys: [
        { pubkey: f.arbiter.publicKey, isSigner: true, isWritable: false },
        ...[f.address(id), f.creator.publicKey, f.counterparty.publicKey, f.feeRecipient].map((pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: true }))
      ],
      data: Buffer.from([5, 3])
    })
    expect(f.send([ix], [f.arbiter]).customError).toBe(6028)
  })
})

describe("escrow error table", () => {
  it("has a readable message for every code the program defines, and no others", () => {
    const header = readFileSync(new URL("../../programs/escrow/escrow.h", import.meta.url), "utf8")
    const programCodes = [...header.matchAll(/ERR_\w+ = (\d+)/g)].map((m) => Number(m[1]))
    expect(programCodes.length).toBeGreaterThan(30)
    expect(Object.keys(ESCROW_ERRORS).map(Number)).toEqual(programCodes)
    expect(escrowErrorMessage(6001)).toBe("only the counterparty can accept this escrow")
    expect(escrowErrorMessage(1)).toBeUndefined()
  })

  it("uses the system program id the instructions reference", () => {
    expect(createEscrowInstruction(new EscrowFixture().createArgs()).keys[2].pubkey.equals(SystemProgram.programId)).toBe(true)
  })
})
