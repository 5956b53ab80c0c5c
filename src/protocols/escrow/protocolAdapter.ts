/** The escrow adapter: all eight escrow operations of our escrow program. */
import { opt, req, type IntentFields } from "../intentRequirements.js"
import { protocolAdapter } from "../protocolAdapter.js"
import { type GuardedTransaction, noSpend, outflowSpend, positiveAmount } from "../typeFacts.js"
import { escrowBuilders } from "./buildWithChain.js"
import { ESCROW_INSTRUCTION } from "./layout.js"
import { describeEscrowFailure } from "./simulationError.js"

const parties: IntentFields = {
  escrowNumericId: req("amount"),
  counterparty: req("address"),
  creator: req("address"),
  arbiter: req("address"),
  feeRecipient: req("address")
}
const byCreator: IntentFields = { escrowNumericId: req("amount"), creator: req("address") }

/** A create also pays the escrow account's rent: the expected outflow is what the build recorded. */
const createdWithRent = (transaction: GuardedTransaction) => ({
  intent: transaction.build_facts?.amountLamports
    ? { ...transaction.intent, lamports: transaction.build_facts.amountLamports }
    : transaction.intent
})

const milestonesTotal = (intent: Readonly<Record<string, unknown>>): bigint =>
  Array.isArray(intent.milestones)
    ? intent.milestones.reduce<bigint>(
      (sum, milestone: unknown) =>
        sum + (typeof milestone === "object" && milestone !== null ? positiveAmount((milestone as { amount?: unknown }).amount) : 0n),
      0n
    )
    : 0n

export const escrowAdapter = protocolAdapter({
  protocol: "escrow",
  // all eight: the spec names create/accept/release and says the others exist as transaction types;
  // a capability list without them would refuse a refund
  capabilities: [
    "create_escrow", "accept_escrow", "release_escrow", "refund_escrow", "dispute_escrow", "resolve_dispute",
    "create_milestone_escrow", "release_milestone"
  ],
  programIds: (ids) => [ids.escrow],
  ownPrograms: [{
    program: "escrow", setting: "ESCROW_PROGRAM_ID", label: "Escrow program", tag: "escrow",
    instructions: Object.fromEntries(Object.entries(ESCROW_INSTRUCTION).map(([name, tag]) => [tag, name]))
  }],
  builders: escrowBuilders,
  describeFailure: (logs, [programId]) => (programId === undefined ? undefined : describeEscrowFailure(logs, programId)),
  facts: {
    create_escrow: {
      computeUnitBase: 320_000, riskTier: "low", spendLamports: outflowSpend,
      deltaGuard: { direction: "outflow", confirmed: createdWithRent },
      intentFields: { ...parties, amount: req("amount"), deadlineUnixSec: req("integer"), terms: opt("string"), feeBps: opt("bps") }
    },
    accept_escrow: { computeUnitBase: 280_000, riskTier: "low", spendLamports: noSpend, intentFields: byCreator },
    release_escrow: {
      computeUnitBase: 260_000, riskTier: "low", spendLamports: noSpend, deltaGuard: { direction: "inflow" },
      intentFields: { ...byCreator, counterparty: req("address"), feeRecipient: req("address") }
    },
    refund_escrow: { computeUnitBase: 260_000, riskTier: "low", spendLamports: noSpend, deltaGuard: { direction: "inflow" }, intentFields: byCreator },
    dispute_escrow: { computeUnitBase: 240_000, riskTier: "low", spendLamports: noSpend, intentFields: byCreator },
    resolve_dispute: {
      computeUnitBase: 280_000, riskTier: "low", spendLamports: noSpend,
      intentFields: { ...byCreator, counterparty: req("address"), decision: req({ oneOf: ["release", "refund"] }) }
    },
    // no delta check: the spec gives the milestone create no direction
    create_milestone_escrow: {
      computeUnitBase: 360_000, riskTier: "low", spendLamports: milestonesTotal,
      intentFields: { ...parties, milestones: req("array"), deadlineUnixSec: req("integer"), terms: opt("string"), feeBps: opt("bps") }
    },
    release_milestone: {
      computeUnitBase: 280_000, riskTier: "low", spendLamports: noSpend,
      intentFields: { ...byCreator, counterparty: req("address"), feeRecipient: req("address"), milestoneIndex: req("integer") }
    }
  }
})
