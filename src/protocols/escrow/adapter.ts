/**
 * The escrow protocol adapter: one escrow program instruction per escrow transaction type, from the
 * decoded intent and the chain facts the pipeline read (pure: no RPC here). The signing wallet is the
 * acting party (creator, counterparty, arbiter); the program decides whether that party may act, and
 * its refusal comes back from simulation as a readable message (simulationError.ts).
 */
import type { PublicKey, TransactionInstruction } from "@solana/web3.js"
import { Either } from "effect"
import { AdapterInputError, invalidField } from "../adapterError.js"
import { type BuiltTransaction, builtTransaction } from "../builtTransaction.js"
import { type FieldContext, readAddress, readIntegerInRange, readPositiveU64 } from "../intentValues.js"
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
import { readDeadline, readDecision, readEscrowId, readMilestoneIndex, readMilestones, readTermsHash } from "./intentFields.js"
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

export interface EscrowBuildInput {
  readonly wallet: PublicKey
  readonly type: string
  readonly intent: Readonly<Record<string, unknown>>
  readonly chain: EscrowChainFacts
}

type Built = Either.Either<BuiltTransaction, AdapterInputError>

/** The escrow's identity from the intent: creator and numeric id give the PDA. */
export const escrowRefOf = (ctx: FieldContext, intent: Readonly<Record<string, unknown>>, programId: PublicKey) =>
  Either.gen(function* () {
    const creator = yield* readAddress(ctx, intent, "creator")
    const escrowId = yield* readEscrowId(ctx, intent)
    const ref: EscrowRef = { programId, creator, escrowId }
    return { ref, address: findEscrowAddress(programId, creator, escrowId).address }
  })

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

const create = (ctx: FieldContext, input: EscrowBuildInput, milestone: boolean): Built =>
  Either.gen(function* () {
    const { intent, chain, wallet } = input
    const { ref, address } = yield* escrowRefOf(ctx, intent, chain.programId)
    if (!ref.creator.equals(wallet)) {
      return yield* Either.left(invalidField(ctx.protocol, ctx.operation, "creator", `must be the signing wallet ${wallet.toBase58()}: the creator funds the escrow and signs its creation`))
    }
    if (chain.escrow.kind !== "missing") {
      return yield* Either.left(new AdapterInputError({ ...ctx, field: "escrowNumericId", message: `${describeEscrow(ref, address)} already exists` }))
    }
    const counterparty = yield* readAddress(ctx, intent, "counterparty")
    const arbiter = yield* readAddress(ctx, intent, "arbiter")
    const feeRecipient = yield* readAddress(ctx, intent, "feeRecipient")
    const deadlineUnixSec = yield* readDeadline(ctx, intent, chain.nowUnixSec)
    const feeBps = yield* readIntegerInRange(ctx, intent, "feeBps", 0, MAX_FEE_BPS, 0)
    const termsHash = yield* readTermsHash(ctx, intent)
    const args = { ...ref, counterparty, arbiter, feeRecipient, deadlineUnixSec, feeBps, termsHash }
    let instruction: TransactionInstruction
    let amount: bigint
    if (milestone) {
      const milestones = yield* readMilestones(ctx, intent)
      amount = milestones.reduce((sum, m) => sum + m, 0n)
      instruction = createMilestoneEscrowInstruction({ ...args, amount, milestones })
    } else {
      amount = yield* readPositiveU64(ctx, intent, "amount")
      instruction = createEscrowInstruction({ ...args, amount })
    }
    // The wallet pays the amount and the escrow account's rent (kept by the account forever): both are spend.
    return builtTransaction([instruction], { destination: counterparty.toBase58(), amountLamports: amount + chain.escrowRentExemptMinimum })
  })

// The operations below move nothing out of the wallet (fees aside): amountLamports 0, so spending
// limits see a zero spend instead of failing closed on a missing amount.

const accept = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { ref, address } = yield* escrowRefOf(ctx, input.intent, input.chain.programId)
    yield* existingEscrow(ctx, input.chain, ref, address)
    return builtTransaction([acceptEscrowInstruction({ ...ref, counterparty: input.wallet })], { amountLamports: 0n })
  })

const dispute = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { ref, address } = yield* escrowRefOf(ctx, input.intent, input.chain.programId)
    yield* existingEscrow(ctx, input.chain, ref, address)
    return builtTransaction([disputeEscrowInstruction({ ...ref, authority: input.wallet })], { amountLamports: 0n })
  })

const release = (ctx: FieldContext, input: EscrowBuildInput, milestone: boolean): Built =>
  Either.gen(function* () {
    const { intent, chain, wallet } = input
    const { ref, address } = yield* escrowRefOf(ctx, intent, chain.programId)
    const state = yield* existingEscrow(ctx, chain, ref, address)
    const counterparty = yield* readAddress(ctx, intent, "counterparty")
    const feeRecipient = yield* readAddress(ctx, intent, "feeRecipient")
    const args = { ...ref, authority: wallet, counterparty, feeRecipient }
    const facts = { destination: counterparty.toBase58(), amountLamports: 0n }
    if (!milestone) return yield* withPayoutCheck(ctx, input, state, { type: "release_escrow" }, builtTransaction([releaseEscrowInstruction(args)], facts))
    const index = yield* readMilestoneIndex(ctx, intent)
    return yield* withPayoutCheck(ctx, input, state, { type: "release_milestone", index }, builtTransaction([releaseMilestoneInstruction({ ...args, index })], facts))
  })

const refund = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { ref, address } = yield* escrowRefOf(ctx, input.intent, input.chain.programId)
    const state = yield* existingEscrow(ctx, input.chain, ref, address)
    const built = builtTransaction([refundEscrowInstruction({ ...ref, authority: input.wallet })], { destination: ref.creator.toBase58(), amountLamports: 0n })
    return yield* withPayoutCheck(ctx, input, state, { type: "refund_escrow" }, built)
  })

const resolve = (ctx: FieldContext, input: EscrowBuildInput): Built =>
  Either.gen(function* () {
    const { intent, chain, wallet } = input
    const { ref, address } = yield* escrowRefOf(ctx, intent, chain.programId)
    const state = yield* existingEscrow(ctx, chain, ref, address)
    const counterparty = yield* readAddress(ctx, intent, "counterparty")
    const decision = yield* readDecision(ctx, intent)
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
      return create(ctx, input, false)
    case "create_milestone_escrow":
      return create(ctx, input, true)
    case "accept_escrow":
      return accept(ctx, input)
    case "release_escrow":
      return release(ctx, input, false)
    case "release_milestone":
      return release(ctx, input, true)
    case "refund_escrow":
      return refund(ctx, input)
    case "dispute_escrow":
      return dispute(ctx, input)
    case "resolve_dispute":
      return resolve(ctx, input)
    default:
      return Either.left(new AdapterInputError({ ...ctx, message: `escrow has no adapter for ${input.type}` }))
  }
}
