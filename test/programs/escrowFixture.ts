// Test fixture for the escrow program: a ledger with programs/dist/escrow.so loaded at the default
// ESCROW_PROGRAM_ID, four funded parties, and shorthands for each instruction.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js"
import {
  acceptEscrowInstruction, createEscrowInstruction, createMilestoneEscrowInstruction, decodeEscrowEvents, decodeEscrowState,
  disputeEscrowInstruction, escrowAddress, refundEscrowInstruction, releaseEscrowInstruction, releaseMilestoneInstruction,
  resolveDisputeInstruction, type CreateEscrowArgs, type EscrowDecision, type EscrowEvent, type EscrowRef, type EscrowState
} from "../../src/protocols/escrow/index.js"
import { ESCROW_PROGRAM_ID, TestLedger, type SendResult } from "./ledger.js"

export const ESCROW_SO = fileURLToPath(new URL("../../programs/dist/escrow.so", import.meta.url))
export const START_TIME = 1_700_000_000n
export const DEADLINE = START_TIME + 3_600n
export const AMOUNT = 2_000_000_000n
export const FEE_BPS = 250

export const feeOf = (gross: bigint, bps = FEE_BPS): bigint => (gross * BigInt(bps)) / 10_000n

export interface Outcome extends SendResult {
  readonly events: EscrowEvent[]
}

export class EscrowFixture {
  readonly ledger = new TestLedger()
  readonly programId = ESCROW_PROGRAM_ID
  readonly creator = this.ledger.newFundedKeypair(50_000_000_000n)
  readonly counterparty = this.ledger.newFundedKeypair()
  readonly arbiter = this.ledger.newFundedKeypair()
  readonly feeRecipient = this.ledger.newFundedKeypair(1_000_000_000n).publicKey
  readonly stranger = this.ledger.newFundedKeypair()
  private nextId = 1n

  constructor() {
    this.ledger.addProgram(this.programId, readFileSync(ESCROW_SO))
    this.ledger.setUnixTimestamp(START_TIME)
  }

  ref(escrowId: bigint): EscrowRef {
    return { programId: this.programId, creator: this.creator.publicKey, escrowId }
  }

  address(escrowId: bigint): PublicKey {
    return escrowAddress(this.ref(escrowId))
  }

  state(escrowId: bigint): EscrowState {
    const data = this.ledger.data(this.address(escrowId))
    if (data === undefined) throw new Error(`escrow ${escrowId} does not exist`)
    return decodeEscrowState(data)
  }

  createArgs(overrides: Partial<CreateEscrowArgs> = {}): CreateEscrowArgs {
    return {
      ...this.ref(this.nextId++),
      counterparty: this.counterparty.publicKey,
      arbiter: this.arbiter.publicKey,
      feeRecipient: this.feeRecipient,
      amount: AMOUNT,
      deadlineUnixSec: DEADLINE,
      feeBps: FEE_BPS,
      termsHash: new Uint8Array(32).fill(7),
      ...overrides
    }
  }

  /** Sends instructions with the ledger's payer paying fees, so parties' balances move only by escrow amounts. */
  send(instructions: TransactionInstruction[], signers: Keypair[]): Outcome {
    const result = this.ledger.send(instructions, signers)
    return { ...result, events: decodeEscrowEvents(result.logs, this.programId) }
  }

  create(overrides: Partial<CreateEscrowArgs> = {}): { id: bigint; outcome: Outcome } {
    const args = this.createArgs(overrides)
    return { id: args.escrowId, outcome: this.send([createEscrowInstruction(args)], [this.creator]) }
  }

  createMilestones(milestones: bigint[], overrides: Partial<CreateEscrowArgs> = {}): { id: bigint; outcome: Outcome } {
    const args = { ...this.createArgs({ amount: milestones.reduce((a, b) => a + b, 0n), ...overrides }), milestones }
    return { id: args.escrowId, outcome: this.send([createMilestoneEscrowInstruction(args)], [this.creator]) }
  }

  accept(id: bigint, by: Keypair = this.counterparty): Outcome {
    return this.send([acceptEscrowInstruction({ ...this.ref(id), counterparty: by.publicKey })], [by])
  }

  release(id: bigint, by: Keypair = this.creator, accounts: { counterparty?: PublicKey; feeRecipient?: PublicKey } = {}): Outcome {
    return this.send(
      [releaseEscrowInstruction({
        ...this.ref(id),
        authority: by.publicKey,
        counterparty: accounts.counterparty ?? this.counterparty.publicKey,
        feeRecipient: accounts.feeRecipient ?? this.feeRecipient
      })],
      [by]
    )
  }

  releaseMilestone(id: bigint, index: number, by: Keypair = this.creator): Outcome {
    return this.send(
      [releaseMilestoneInstruction({ ...this.ref(id), authority: by.publicKey, counterparty: this.counterparty.publicKey, feeRecipient: this.feeRecipient, index })],
      [by]
    )
  }

  refund(id: bigint, by: Keypair = this.creator): Outcome {
    return this.send([refundEscrowInstruction({ ...this.ref(id), authority: by.publicKey })], [by])
  }

  dispute(id: bigint, by: Keypair = this.creator): Outcome {
    return this.send([disputeEscrowInstruction({ ...this.ref(id), authority: by.publicKey })], [by])
  }

  resolve(id: bigint, decision: EscrowDecision, by: Keypair = this.arbiter): Outcome {
    return this.send(
      [resolveDisputeInstruction({ ...this.ref(id), arbiter: by.publicKey, counterparty: this.counterparty.publicKey, feeRecipient: this.feeRecipient, decision })],
      [by]
    )
  }

  /** Balances of everyone an escrow can move lamports between, plus the escrow account itself. */
  balances(id: bigint) {
    const b = (k: PublicKey) => this.ledger.balance(k)
    return {
      creator: b(this.creator.publicKey),
      counterparty: b(this.counterparty.publicKey),
      arbiter: b(this.arbiter.publicKey),
      feeRecipient: b(this.feeRecipient),
      escrow: b(this.address(id))
    }
  }

  total(id: bigint): bigint {
    return Object.values(this.balances(id)).reduce((a, b) => a + b, 0n)
  }

  rent(): bigint {
    return this.ledger.rentExempt(272)
  }
}
