// Decodes the escrow account data (272 bytes; layout in programs/escrow/README.md).
import type { PublicKey } from "@solana/web3.js"
import { ByteReader } from "./byteReader.js"
import { ESCROW_ACCOUNT_SIZE, ESCROW_ACCOUNT_TAG, ESCROW_DECISION, ESCROW_STATUS, MAX_MILESTONES, type EscrowDecision, type EscrowStatus } from "./layout.js"

export interface EscrowState {
  readonly status: EscrowStatus
  readonly bump: number
  /** Set once a dispute was resolved. */
  readonly resolution: EscrowDecision | null
  readonly feeBps: number
  readonly escrowId: bigint
  readonly creator: PublicKey
  readonly counterparty: PublicKey
  readonly arbiter: PublicKey
  readonly feeRecipient: PublicKey
  /** Lamports locked at creation. */
  readonly amount: bigint
  /** Lamports already released (fee included) or refunded. */
  readonly paidOut: bigint
  /** Lamports still locked: amount - paidOut. */
  readonly remaining: bigint
  readonly deadlineUnixSec: bigint
  readonly createdAtUnixSec: bigint
  /** Hex of the 32-byte terms hash. */
  readonly termsHash: string
  /** Empty for a simple escrow. */
  readonly milestones: ReadonlyArray<{ readonly amount: bigint; readonly released: boolean }>
}

const byCode = <K extends string>(table: Record<K, number>, code: number): K | undefined =>
  (Object.keys(table) as K[]).find((key) => table[key] === code)

export const decodeEscrowState = (data: Uint8Array): EscrowState => {
  if (data.length !== ESCROW_ACCOUNT_SIZE) throw new Error(`escrow account data is ${data.length} bytes, expected ${ESCROW_ACCOUNT_SIZE}`)
  const r = new ByteReader(data)
  if (r.u8() !== ESCROW_ACCOUNT_TAG) throw new Error("account is not an initialized escrow")
  const statusCode = r.u8()
  const status = byCode(ESCROW_STATUS, statusCode)
  if (status === undefined) throw new Error(`unknown escrow status ${statusCode}`)
  const bump = r.u8()
  const milestoneCount = r.u8()
  if (milestoneCount > MAX_MILESTONES) throw new Error(`milestone count ${milestoneCount} is above ${MAX_MILESTONES}`)
  const resolution = byCode(ESCROW_DECISION, r.u8()) ?? null
  const releasedMask = r.u8()
  const feeBps = r.u16()
  const escrowId = r.u64()
  const creator = r.pubkey()
  const counterparty = r.pubkey()
  const arbiter = r.pubkey()
  const feeRecipient = r.pubkey()
  const amount = r.u64()
  const paidOut = r.u64()
  const deadlineUnixSec = r.i64()
  const createdAtUnixSec = r.i64()
  const termsHash = Buffer.from(r.bytes32()).toString("hex")
  const amounts = Array.from({ length: MAX_MILESTONES }, () => r.u64())
  return {
    status,
    bump,
    resolution,
    feeBps,
    escrowId,
    creator,
    counterparty,
    arbiter,
    feeRecipient,
    amount,
    paidOut,
    remaining: amount - paidOut,
    deadlineUnixSec,
    createdAtUnixSec,
    termsHash,
    milestones: amounts.slice(0, milestoneCount).map((m, i) => ({ amount: m, released: (releasedMask & (1 << i)) !== 0 }))
  }
}
