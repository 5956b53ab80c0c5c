/**
 * The escrow protocol adapter: one escrow program instruction per escrow transaction type, from the
 * decoded intent and the chain facts the pipeline read (pure: no RPC here). The signing wallet is the
 * acting party (creator, counterparty, arbiter); the program decides whether that party may act, and
 * its refusal comes back from simulation as a readable message (simulationError.ts).
 */
import { createHash } from "node:crypto"
import { PublicKey, type TransactionInstruction } from "@solana/web3.js"
import { Either } from "effect"
import type { IntentPayload } from "../../../schemas/intent.js"
import { AdapterInputError, type FieldContext, invalidField } from "../adapterError.js"
import { type BuiltTransaction, builtTransaction } from "../builtTransaction.js"
import {
  acceptEscrowInstruction,
  createEscrowInstruction,
  createMilestoneEscrowInstruction,
  disputeEscrowInstruction,
  type EscrowRef,
  refundEscrowInstruction,
  releaseEscrowInstruction,
  releaseMilestoneInstruction,
  resolveDisputeInstruction
} from "./instructions.js"
import { MAX_FEE_BPS } from "./layout.js"
import { findEscrowAddress } from "./pda.js"
import { type PayeeAccount, type PayoutOperation, payoutRentProblem, payoutsOf } from "./payouts.js"
import type { EscrowState } from "./state.js"

const PROTOCOL = "escrow"

export const ESCROW_TRANSACTION_TYPES = [
  "create_escrow", "accept_escrow", "release_escrow", "refund_escrow",
  "dispute_escrow", "resolve_dispute", "create_milestone_escrow", "release_milestone"
] as const
export type EscrowTransactionType = (typeof ESCROW_TRANSACTION_TYPES)[number]

export const isEscrowTransactionType = (type: string): type is EscrowTransactionType =>
  (ESCROW_TRANSACTION_TYPES as ReadonlyArray<string>).includes(type)

/** What is at the escrow's address: nothing, an account that is not our escrow, or a decoded escrow. */
export type EscrowAccountFact =
  | { readonly kind: "missing" }
  | { readonly kind: "not-escrow"; readonly owner: string }
  | { readonly kind: "escrow"; readonly state: EscrowState }

export interface EscrowChainFacts {
  readonly programId: PublicKey
  /** wall-clock now; the local ledger's clock follows it, a real cluster's is close */
  readonly nowUnixSec: bigint
  readonly escrow: EscrowAccountFact
  /** getMinimumBalanceForRentExemption(272): what a new escrow account costs the creator on top of the amount */
  readonly escrowRentExemptMinimum: bigint
  /** the escrow's payees (creator, counterparty, fee recipient) by address; read for payout operations */
  readonly payees: ReadonlyMap<string, PayeeAccount>
}

/** One escrow type and its intent, decoded by the intent schema (schemas/intent.ts). */
export type EscrowIntent = { readonly [K in EscrowTransactionType]: { readonly type: K; readonly intent: IntentPayload<K> } }[EscrowTransactionType]

export type EscrowBuildInput = EscrowIntent & {
  readonly wallet: PublicKey
  readonly chain: EscrowChainFacts
}

/** SHA-256 of the terms text; 32 zero bytes when there are none (programs/escrow/README.md). */
const termsHashOf = (terms: string | undefined): Uint8Array =>
  terms === undefined ? new Uint8Array(32) : new Uint8Array(createHash("sha256").update(terms, "utf8").digest())

type Built = Either.Either<BuiltTransaction, AdapterInputError>

/** The escrow's identity from the intent: creator and numeric id give the PDA. */
export const escrowRefOf = (intent: { readonly creator: string; readonly escrowNumericId: string }, programId: PublicKey) => {
  const creator = new PublicKey(intent.creator)
  const escrowId = BigInt(intent.escrowNumericId)
  const ref: EscrowRef = { programId, creator, escrowId }
  return { ref, address: findEscrowAddress(programId, creator, escrowId).address }
}

const describeEscrow = (ref: EscrowRef, address: PublicKey) =>
  `escrow ${ref.escrowId} of creator ${ref.creator.toBase58()} (${address.toBase58()})`

/** The existing escrow an operation acts on; a clear refusal when there is none. */
const existingEscrow = (ctx: FieldContext, chain: EscrowChainFacts, ref: EscrowRef, address: PublicKey) => {
  switch (chain.escrow.kind) {
    case "escrow":
      return Either.right(chain.escrow.state)
    case "missing":
      return Either.left(new AdapterInputError({ ...ctx, field: "escrowNumericId", message: `${describeEscrow(ref, address)} does not exist on the ledger` }))
    case "not-escrow":
      return Either.left(new AdapterInputError({ ...ctx, field: "escrowNumericId", message: `account ${address.toBase58()} is not an escrow of program ${chain.programId.toBase58()} (owner ${chain.escrow.owner})` }))
  }
}

/** Refuses a payout that would leave a new payee below rent; otherwise the built transaction. */
const withPayoutCheck = (ctx: FieldContext, input: EscrowBuildInput, state: EscrowState, operation: PayoutOperation, built: BuiltTransaction): Built => {
  const problem = payoutRentProblem(payoutsOf(state, operation), input.chain.payees)
  return problem === null ? Either.right(built) : Either.left(new AdapterInputError({ ...ctx, message: problem }))
}

type CreateInput = EscrowBuildInput & { readonly type: "create_escrow" | "create_milestone_escrow" }

const create = (ctx: FieldContext, input: CreateInput): Built =>
  Either.gen(function* () {
    const { intent, chain, wallet } = input
    const { ref, address } = escrowRefOf(intent, chain.programId)
    if (!ref.creator.equals(wallet)) {
      return yield* Either.left(invalidField(ctx.protocol, ctx.operation, "creator", `must be the signing wallet ${wallet.toBase58()}: the creator funds the escrow and signs its creation`))
    }
    if (chain.escrow.kind !== "missing") {
      return yield* Either.left(new AdapterInputError({ ...ctx, field: "escrowNumericId", message: `${describeEscrow(ref, address)} already exists` }))
    }
    // [n3] the schema cannot know the time; the program checks again against the ledger clock.
    const deadlineUnixSec = BigInt(intent.deadlineUnixSec)
    if (deadlineUnixSec <= chain.nowUnixSec) {
      return yield* Either.left(invalidField(ctx.protocol, ctx.operation, "deadlineUnixSec", `must be in the future (now ${chain.nowUnixSec})`))
    }
    // the schema allows any basis points; the program caps the fee at 10%
    if (intent.feeBps > MAX_FEE_BPS) return yield* Either.left(invalidField(ctx.protocol, ctx.operation, "feeBps", `must be an integer between 0 and ${MAX_FEE_BPS}`))
    const counterparty = new PublicKey(intent.counterparty)
    const args = {
      ...ref, counterparty, arbiter: new PublicKey(intent.arbiter), feeRecipient: new PublicKey(intent.feeRecipient),
      deadlineUnixSec, feeBps: intent.feeBps, termsHash: termsHashOf(intent.terms)
    }
    let instruction: TransactionInstruction
    let amount: bigint
    if (input.type === "create_milestone_escrow") {
      const milestones = input.intent.milestones.map((m) => m.amount)
      amount = milestones.reduce((sum, m) => sum + m, 0n)
      instruction = createMilestoneEscrowInstruction({ ...args, amount, milestones })
    } else {
      amount = input.intent.amount
      instruction = createEscrowInstruction({ ...args, amount })
    }
    // The wallet pays the amount and the escrow account's rent (kept by the account forever): both are spend.
    return builtTransaction([instruction], { destination: counterparty.toBase58(), amountLamports: amount + chain.escrowRentExemptMinimum })
  })

// The operations below move nothing out of the wallet (fees aside): amountLamports 0, so spending
// limits see a zero spend instead of failing closed on a missing amount.

const accept = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { ref, address } = escrowRefOf(input.intent, input.chain.programId)
    yield* existingEscrow(ctx, input.chain, ref, address)
    return builtTransaction([acceptEscrowInstruction({ ...ref, counterparty: input.wallet })], { amountLamports: 0n })
  })

const dispute = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { ref, address } = escrowRefOf(input.intent, input.chain.programId)
    yield* existingEscrow(ctx, input.chain, ref, address)
    return builtTransaction([disputeEscrowInstruction({ ...ref, authority: input.wallet })], { amountLamports: 0n })
  })

type ReleaseInput = EscrowBuildInput & { readonly type: "release_escrow" | "release_milestone" }

const release = (ctx: FieldContext, input: ReleaseInput): Built =>
  Either.gen(function* () {
    const { intent, chain, wallet } = input
    const { ref, address } = escrowRefOf(intent, chain.programId)
    const state = yield* existingEscrow(ctx, chain, ref, address)
    const counterparty = new PublicKey(intent.counterparty)
    const args = { ...ref, authority: wallet, counterparty, feeRecipient: new PublicKey(intent.feeRecipient) }
    const facts = { destination: counterparty.toBase58(), amountLamports: 0n }
    if (input.type === "release_escrow") return yield* withPayoutCheck(ctx, input, state, { type: "release_escrow" }, builtTransaction([releaseEscrowInstruction(args)], facts))
    const index = input.intent.milestoneIndex
    return yield* withPayoutCheck(ctx, input, state, { type: "release_milestone", index }, builtTransaction([releaseMilestoneInstruction({ ...args, index })], facts))
  })

const refund = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { ref, address } = escrowRefOf(input.intent, input.chain.programId)
    const state = yield* existingEscrow(ctx, input.chain, ref, address)
    const built = builtTransaction([refundEscrowInstruction({ ...ref, authority: input.wallet })], { destination: ref.creator.toBase58(), amountLamports: 0n })
    return yield* withPayoutCheck(ctx, input, state, { type: "refund_escrow" }, built)
  })

const resolve = (ctx: FieldContext, input: EscrowBuildInput & { readonly type: "resolve_dispute" }): Built =>
  Either.gen(function* () {
    const { intent, chain, wallet } = input
    const { ref, address } = escrowRefOf(intent, chain.programId)
    const state = yield* existingEscrow(ctx, chain, ref, address)
    const counterparty = new PublicKey(intent.counterparty)
    const decision = intent.decision
    // The intent carries no fee recipient: the escrow's own (the program requires exactly that account).
    const instruction = resolveDisputeInstruction({ ...ref, arbiter: wallet, counterparty, feeRecipient: state.feeRecipient, decision })
    const destination = decision === "release" ? counterparty : ref.creator
    return yield* withPayoutCheck(ctx, input, state, { type: "resolve_dispute", decision }, builtTransaction([instruction], { destination: destination.toBase58(), amountLamports: 0n }))
  })

/** Builds the escrow program instruction for one escrow transaction type. */
export const buildEscrow = (input: EscrowBuildInput): Built => {
  const ctx: FieldContext = { protocol: PROTOCOL, operation: input.type }
  switch (input.type) {
    case "create_escrow":
    case "create_milestone_escrow":
      return create(ctx, input)
    case "accept_escrow":
      return accept(ctx, input)
    case "release_escrow":
    case "release_milestone":
      return release(ctx, input)
    case "refund_escrow":
      return refund(ctx, input)
    case "dispute_escrow":
      return dispute(ctx, input)
    case "resolve_dispute":
      return resolve(ctx, input)
  }
}
