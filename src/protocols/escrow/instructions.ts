// Builders for every escrow program instruction (layouts in programs/escrow/README.md).
// Pure: they derive the escrow PDA and encode data; nothing is sent.
import { PublicKey, SystemProgram, TransactionInstruction, type AccountMeta } from "@solana/web3.js"
import { ESCROW_DECISION, ESCROW_INSTRUCTION, MAX_MILESTONES, type EscrowDecision } from "./layout.js"
import { escrowIdSeed, findEscrowAddress } from "./pda.js"

/** Identifies one escrow: the PDA of (creator, numeric id) under the program. */
export interface EscrowRef {
  readonly programId: PublicKey
  readonly creator: PublicKey
  readonly escrowId: bigint
}

export interface CreateEscrowArgs extends EscrowRef {
  readonly counterparty: PublicKey
  readonly arbiter: PublicKey
  readonly feeRecipient: PublicKey
  /** Lamports locked in the escrow (the creator also pays the account's rent). */
  readonly amount: bigint
  readonly deadlineUnixSec: bigint
  /** At most 1000 (10%). */
  readonly feeBps: number
  /** 32 bytes: SHA-256 of the terms text (zeros when there are none). */
  readonly termsHash: Uint8Array
}

export interface CreateMilestoneEscrowArgs extends CreateEscrowArgs {
  /** 1 to 8 positive amounts that sum to `amount`. */
  readonly milestones: ReadonlyArray<bigint>
}

const writable = (pubkey: PublicKey, isSigner = false): AccountMeta => ({ pubkey, isSigner, isWritable: true })
const signer = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: true, isWritable: false })

export const escrowAddress = (ref: EscrowRef): PublicKey => findEscrowAddress(ref.programId, ref.creator, ref.escrowId).address

const u64 = (value: bigint, what: string): Buffer => {
  if (value < 0n || value > 0xffff_ffff_ffff_ffffn) throw new RangeError(`${what} ${value} is not a u64`)
  const out = Buffer.alloc(8)
  out.writeBigUInt64LE(value)
  return out
}

const i64 = (value: bigint, what: string): Buffer => {
  if (value < -(1n << 63n) || value >= 1n << 63n) throw new RangeError(`${what} ${value} is not an i64`)
  const out = Buffer.alloc(8)
  out.writeBigInt64LE(value)
  return out
}

const createData = (tag: number, args: CreateEscrowArgs): Buffer => {
  if (args.termsHash.length !== 32) throw new RangeError(`terms hash must be 32 bytes, got ${args.termsHash.length}`)
  if (!Number.isInteger(args.feeBps) || args.feeBps < 0 || args.feeBps > 0xffff) throw new RangeError(`fee bps ${args.feeBps} is not a u16`)
  const feeBps = Buffer.alloc(2)
  feeBps.writeUInt16LE(args.feeBps)
  return Buffer.concat([
    Buffer.from([tag]),
    escrowIdSeed(args.escrowId),
    u64(args.amount, "amount"),
    i64(args.deadlineUnixSec, "deadline"),
    feeBps,
    Buffer.from(args.termsHash),
    args.counterparty.toBuffer(),
    args.arbiter.toBuffer(),
    args.feeRecipient.toBuffer()
  ])
}

const createKeys = (args: EscrowRef): AccountMeta[] => [
  writable(args.creator, true),
  writable(escrowAddress(args)),
  { pubkey: SystemProgram.programId, isSigner: false, isWritable: false }
]

/** create_escrow. Accounts: creator (signer, writable), escrow PDA (writable), system program. */
export const createEscrowInstruction = (args: CreateEscrowArgs): TransactionInstruction =>
  new TransactionInstruction({ programId: args.programId, keys: createKeys(args), data: createData(ESCROW_INSTRUCTION.create, args) })

/** create_milestone_escrow. Same accounts as create_escrow; data adds the milestone amounts. */
export const createMilestoneEscrowInstruction = (args: CreateMilestoneEscrowArgs): TransactionInstruction => {
  if (args.milestones.length > MAX_MILESTONES) throw new RangeError(`at most ${MAX_MILESTONES} milestones, got ${args.milestones.length}`)
  const data = Buffer.concat([
    createData(ESCROW_INSTRUCTION.createMilestone, args),
    Buffer.from([args.milestones.length]),
    ...args.milestones.map((m, i) => u64(m, `milestone ${i}`))
  ])
  return new TransactionInstruction({ programId: args.programId, keys: createKeys(args), data })
}

/** accept_escrow. Accounts: counterparty (signer), escrow (writable). */
export const acceptEscrowInstruction = (args: EscrowRef & { readonly counterparty: PublicKey }): TransactionInstruction =>
  new TransactionInstruction({
    programId: args.programId,
    keys: [signer(args.counterparty), writable(escrowAddress(args))],
    data: Buffer.from([ESCROW_INSTRUCTION.accept])
  })

export interface ReleaseEscrowArgs extends EscrowRef {
  /** The creator or the arbiter. */
  readonly authority: PublicKey
  readonly counterparty: PublicKey
  readonly feeRecipient: PublicKey
}

const releaseKeys = (args: ReleaseEscrowArgs): AccountMeta[] => [
  signer(args.authority),
  writable(escrowAddress(args)),
  writable(args.counterparty),
  writable(args.feeRecipient)
]

/** release_escrow: pays everything still locked to the counterparty, less the fee.
 * Accounts: authority (signer), escrow, counterparty, fee recipient (writable). */
export const releaseEscrowInstruction = (args: ReleaseEscrowArgs): TransactionInstruction =>
  new TransactionInstruction({ programId: args.programId, keys: releaseKeys(args), data: Buffer.from([ESCROW_INSTRUCTION.release]) })

/** release_milestone: pays milestone `index` to the counterparty, less the fee. Same accounts as release. */
export const releaseMilestoneInstruction = (args: ReleaseEscrowArgs & { readonly index: number }): TransactionInstruction => {
  if (!Number.isInteger(args.index) || args.index < 0 || args.index > 0xff) throw new RangeError(`milestone index ${args.index} is not a u8`)
  return new TransactionInstruction({
    programId: args.programId,
    keys: releaseKeys(args),
    data: Buffer.from([ESCROW_INSTRUCTION.releaseMilestone, args.index])
  })
}

/** refund_escrow: returns everything still locked to the creator.
 * Accounts: authority (signer: creator after the deadline if never accepted, or the arbiter), escrow, creator (writable). */
export const refundEscrowInstruction = (args: EscrowRef & { readonly authority: PublicKey }): TransactionInstruction =>
  new TransactionInstruction({
    programId: args.programId,
    keys: [signer(args.authority), writable(escrowAddress(args)), writable(args.creator)],
    data: Buffer.from([ESCROW_INSTRUCTION.refund])
  })

/** dispute_escrow. Accounts: authority (signer: creator or counterparty), escrow (writable). */
export const disputeEscrowInstruction = (args: EscrowRef & { readonly authority: PublicKey }): TransactionInstruction =>
  new TransactionInstruction({
    programId: args.programId,
    keys: [signer(args.authority), writable(escrowAddress(args))],
    data: Buffer.from([ESCROW_INSTRUCTION.dispute])
  })

export interface ResolveDisputeArgs extends EscrowRef {
  readonly arbiter: PublicKey
  readonly counterparty: PublicKey
  /** Read it from the escrow state (decodeEscrowState) when the intent does not carry it. */
  readonly feeRecipient: PublicKey
  readonly decision: EscrowDecision
}

/** resolve_dispute. Accounts: arbiter (signer), escrow, creator, counterparty, fee recipient (writable). */
export const resolveDisputeInstruction = (args: ResolveDisputeArgs): TransactionInstruction =>
  new TransactionInstruction({
    programId: args.programId,
    keys: [signer(args.arbiter), writable(escrowAddress(args)), writable(args.creator), writable(args.counterparty), writable(args.feeRecipient)],
    data: Buffer.from([ESCROW_INSTRUCTION.resolve, ESCROW_DECISION[args.decision]])
  })
