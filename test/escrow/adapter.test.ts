/**
 * The pure escrow pieces: the adapter's instructions, facts and refusals from given chain facts; the
 * payouts and their rent check; the program's custom errors as readable simulation messages.
 */
import { Keypair, PublicKey } from "@solana/web3.js"
import { Either, Schema } from "effect"
import { IntentPayloads } from "../../schemas/intent.js"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { buildEscrow, type EscrowAccountFact, type EscrowChainFacts, type EscrowIntent } from "../../src/protocols/escrow/adapter.js"
import { ESCROW_INSTRUCTION, findEscrowAddress } from "../../src/protocols/escrow/index.js"
import { escrowFee, type PayeeAccount, payoutRentProblem, payoutsOf } from "../../src/protocols/escrow/payouts.js"
import { describeEscrowFailure } from "../../src/protocols/escrow/simulationError.js"
import type { EscrowState } from "../../src/protocols/escrow/state.js"

const programId = new PublicKey("Escrow1111111111111111111111111111111111111")
const key = () => Keypair.generate().publicKey
const creator = key()
const counterparty = key()
const arbiter = key()
const feeRecipient = key()
const NOW = 1_800_000_000n
const RENT = 2_784_000n

const chain = (escrow: EscrowAccountFact = { kind: "missing" }, payees = new Map<string, PayeeAccount>()): EscrowChainFacts => ({
  programId, nowUnixSec: NOW, escrow, escrowRentExemptMinimum: RENT, payees
})

const createIntent = (extra: Record<string, unknown> = {}) => ({
  escrowNumericId: "42", creator: creator.toBase58(), counterparty: counterparty.toBase58(), arbiter: arbiter.toBase58(),
  feeRecipient: feeRecipient.toBase58(), amount: "1000000000", deadlineUnixSec: Number(NOW) + 60, feeBps: 250, ...extra
})

const state = (overrides: Partial<EscrowState> = {}): EscrowState => ({
  status: "accepted", bump: 255, resolution: null, feeBps: 250, escrowId: 42n, creator, counterparty, arbiter, feeRecipient,
  amount: 1_000_000_000n, paidOut: 0n, remaining: 1_000_000_000n, deadlineUnixSec: NOW + 60n, createdAtUnixSec: NOW,
  termsHash: "00".repeat(32), milestones: [], ...overrides
})

/** An escrow intent as the registry hands it over: decoded by its type's schema. */
const typed = (type: EscrowIntent["type"], raw: Record<string, unknown>) =>
  ({ type, intent: Schema.decodeUnknownSync(IntentPayloads[type] as Schema.Schema<unknown, unknown, never>)(raw) }) as EscrowIntent
/** buildEscrow for a raw intent of `type`. */
const build = (wallet: PublicKey, type: EscrowIntent["type"], raw: Record<string, unknown>, facts: EscrowChainFacts) =>
  buildEscrow({ ...typed(type, raw), wallet, chain: facts })

const funded = (lamports: bigint): PayeeAccount => ({ exists: true, lamports, rentExemptMinimum: 890_880n })
const fresh: PayeeAccount = { exists: false, lamports: 0n, rentExemptMinimum: 890_880n }

describe("buildEscrow", () => {
  it("builds create_escrow at the PDA with the terms hash and counts amount + rent as spend", () => {
    const built = Either.getOrThrow(build(creator, "create_escrow", createIntent({ terms: "hello" }), chain()))
    const [ix] = built.instructions
    expect(ix.programId.equals(programId)).toBe(true)
    expect(ix.keys[1].pubkey.equals(findEscrowAddress(programId, creator, 42n).address)).toBe(true)
    expect(ix.data[0]).toBe(ESCROW_INSTRUCTION.create)
    expect(Buffer.from(ix.data.subarray(27, 59)).equals(createHash("sha256").update("hello").digest())).toBe(true)
    expect(built.facts).toMatchObject({ destination: counterparty.toBase58(), amountLamports: 1_000_000_000n + RENT })
    expect(built.programIds).toEqual([programId.toBase58()])
  })

  it("refuses a create signed by someone else, an existing escrow, a past deadline and a fee above 10%", () => {
    const message = (...args: Parameters<typeof build>) => Either.match(build(...args), { onLeft: (e) => e.message, onRight: () => "built" })
    expect(message(arbiter, "create_escrow", createIntent(), chain())).toContain("intent.creator must be the signing wallet")
    expect(message(creator, "create_escrow", createIntent(), chain({ kind: "escrow", state: state() }))).toContain("already exists")
    expect(message(creator, "create_escrow", createIntent({ deadlineUnixSec: Number(NOW) }), chain())).toContain("intent.deadlineUnixSec must be in the future")
    expect(message(creator, "create_escrow", createIntent({ feeBps: 1001 }), chain())).toBe("intent.feeBps must be an integer between 0 and 1000")
    expect(message(counterparty, "accept_escrow", { escrowNumericId: "42", creator: creator.toBase58() }, chain())).toContain("does not exist on the ledger")
  })

  it("sums milestones into the amount", () => {
    const intent = { ...createIntent(), amount: undefined, milestones: [{ amount: "300" }, { amount: 700 }] }
    const built = Either.getOrThrow(build(creator, "create_milestone_escrow", intent, chain()))
    expect(built.facts.amountLamports).toBe(1000n + RENT)
    expect(built.instructions[0].data[0]).toBe(ESCROW_INSTRUCTION.createMilestone)
  })

  it("signs accept as the wallet and resolve with the escrow's recorded fee recipient", () => {
    const accept = Either.getOrThrow(build(counterparty, "accept_escrow", { escrowNumericId: "42", creator: creator.toBase58() }, chain({ kind: "escrow", state: state({ status: "created" }) })))
    expect(accept.instructions[0].keys[0]).toMatchObject({ isSigner: true })
    expect(accept.instructions[0].keys[0].pubkey.equals(counterparty)).toBe(true)
    expect(accept.facts.amountLamports).toBe(0n)
    const payees = new Map([[counterparty.toBase58(), funded(1n << 30n)], [feeRecipient.toBase58(), funded(1n << 30n)], [creator.toBase58(), funded(1n << 30n)]])
    const resolve = Either.getOrThrow(build(
      arbiter, "resolve_dispute",
      { escrowNumericId: "42", creator: creator.toBase58(), counterparty: counterparty.toBase58(), decision: "release" },
      chain({ kind: "escrow", state: state({ status: "disputed" }) }, payees)
    ))
    expect(resolve.instructions[0].keys[4].pubkey.equals(feeRecipient)).toBe(true)
    expect(resolve.facts.destination).toBe(counterparty.toBase58())
  })
})

describe("payouts", () => {
  it("splits like the program: floor fee, remainder to the counterparty", () => {
    expect(escrowFee(999n, 250)).toBe(24n)
    expect(payoutsOf(state(), { type: "release_escrow" }).map((p) => [p.role, p.lamports])).toEqual([["counterparty", 975_000_000n], ["fee recipient", 25_000_000n]])
    expect(payoutsOf(state(), { type: "resolve_dispute", decision: "refund" }).map((p) => [p.role, p.lamports])).toEqual([["creator", 1_000_000_000n]])
    const milestones = [{ amount: 400n, released: true }, { amount: 600n, released: false }]
    expect(payoutsOf(state({ milestones }), { type: "release_milestone", index: 0 })).toEqual([])
    expect(payoutsOf(state({ milestones }), { type: "release_milestone", index: 1 }).map((p) => p.lamports)).toEqual([585n, 15n])
  })

  it("refuses a payout leaving a new account below rent, and skips zero payouts", () => {
    const payouts = payoutsOf(state({ amount: 50_000_000n, remaining: 50_000_000n, feeBps: 100 }), { type: "release_escrow" })
    const payees = new Map([[counterparty.toBase58(), funded(10n)], [feeRecipient.toBase58(), fresh]])
    expect(payoutRentProblem(payouts, payees)).toContain("fee recipient payout: transfer of 500000 lamports to unfunded destination")
    const noFee = payoutsOf(state({ feeBps: 0 }), { type: "release_escrow" })
    expect(payoutRentProblem(noFee, new Map([[counterparty.toBase58(), fresh], [feeRecipient.toBase58(), fresh]]))).toBeNull()
  })
})

describe("describeEscrowFailure", () => {
  it("names the escrow program's error and ignores other programs' custom errors", () => {
    const logs = [`Program ${programId.toBase58()} invoke [1]`, `Program ${programId.toBase58()} failed: custom program error: 0x1772`]
    expect(describeEscrowFailure(logs, programId.toBase58())).toBe("only the creator or the arbiter can release this escrow (escrow error 6002 OnlyCreatorOrArbiterReleases)")
    expect(describeEscrowFailure(["Program 11111111111111111111111111111111 failed: custom program error: 0x1"], programId.toBase58())).toBeUndefined()
  })
})
