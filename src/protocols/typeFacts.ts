/**
 * What the pipeline, the policy engine and the positions code need to know of one transaction type, declared
 * by the protocol module that defines the type (its adapter) and gathered by the registry (typeFactsRegistry.ts),
 * which the compiler holds to one entry per type.
 */
import type { IntentFields } from "./intentRequirements.js"

export type DeltaDirection = "outflow" | "inflow"

/** What the lamport delta guard reads of a confirmed transaction: its stored intent and what its build recorded. */
export interface GuardedTransaction {
  readonly intent: Readonly<Record<string, unknown>>
  readonly build_facts: {
    readonly amountLamports?: string | null
    readonly expectedInflowLamports?: string | undefined
  } | null
}

/** The lamport delta guard's reading of a confirmed transaction: the amounts it is checked against. */
export interface GuardReading {
  /** the direction, when it is not the spec's for the type (a swap that sold SOL is checked like a transfer) */
  readonly direction?: DeltaDirection
  readonly intent: Readonly<Record<string, unknown>>
}

export interface DeltaGuardFacts {
  /** the spec's direction of the type's amount; absent: the spec has no delta check for it */
  readonly direction?: DeltaDirection
  /** what a confirmed transaction is checked against instead of its stored intent (amounts the build recorded) */
  readonly confirmed?: (transaction: GuardedTransaction) => GuardReading
}

/** The build facts a stake position indexer reads to find the liquid staking token. */
export interface StakeBuildFacts {
  readonly outputMint?: string | undefined
  readonly tokenMint: string | null
}

/** Which positions a confirmed transaction of the type changes. */
export type PositionIndexing =
  | { readonly indexer: "lendingObligation" }
  | { readonly indexer: "stakeToken"; readonly stakeTokenMint: (facts: StakeBuildFacts) => string | undefined }

/**
 * Who performs a type whose adapter builds no transaction for the pipeline to submit: the service's reads,
 * the x402 stages (a payment built against the resource's terms), or the off-chain intents (treasury, paper).
 */
export type PerformedBy = "balanceRead" | "positionsRead" | "x402Payment" | "offChain"

/** The spec's tier of a type before amounts: more than 2 SOL raises a low or medium type to high. */
export type TypeRiskTier = "low" | "medium" | "critical"

export interface TypeFacts {
  /** compute units of its first instruction (the spec's, or our [n16] decision in docs/decisions/pipeline.md) */
  readonly computeUnitBase: number
  readonly riskTier: TypeRiskTier
  /** lamports the intent spends from its wallet, which is what an agent's budget counts */
  readonly spendLamports: (intent: Readonly<Record<string, unknown>>) => bigint
  /** absent: the lamport delta guard does not check the type */
  readonly deltaGuard?: DeltaGuardFacts
  readonly positions?: PositionIndexing
  /** the intent fields the compatibility check reads at the current adapter version */
  readonly intentFields?: IntentFields
  /** absent: its adapter builds the transaction, the pipeline signs and submits it */
  readonly performedBy?: PerformedBy
  /** it changes agents' budgets: an operator's act (the `treasury` scope) */
  readonly changesBudgets?: true
  /** it trades at a quote within a slippage: slippage checks apply, and its token flows are checked when it lands */
  readonly swapsAtQuote?: true
  /** it sends tokens: their value counts with its lamports */
  readonly sendsTokens?: true
  /** it creates a mint: the client learns the new mint's address from its result */
  readonly createsMint?: true
}

/** A positive integer amount (number, bigint or decimal string); 0 otherwise. */
export const positiveAmount = (raw: unknown): bigint => {
  if (typeof raw === "bigint") return raw > 0n ? raw : 0n
  if (typeof raw === "number" && Number.isSafeInteger(raw) && raw > 0) return BigInt(raw)
  if (typeof raw === "string" && /^\d+$/.test(raw)) return BigInt(raw)
  return 0n
}

/**
 * The intent amount the delta guard expects: `lamports`, else `amountLamports`, else `amount`
 * (the first that is present, i.e. not undefined/null). Null when it is not a positive
 * integer (number or decimal string): then there is no check.
 */
export const expectedAmountLamports = (intent: Readonly<Record<string, unknown>>): bigint | null => {
  const raw = intent.lamports ?? intent.amountLamports ?? intent.amount
  let value: bigint | null = null
  if (typeof raw === "number" && Number.isSafeInteger(raw)) value = BigInt(raw)
  else if (typeof raw === "bigint") value = raw
  else if (typeof raw === "string" && /^\d+$/.test(raw.trim())) value = BigInt(raw.trim())
  return value !== null && value > 0n ? value : null
}

/** Spends nothing from the wallet in lamports (token amounts are not lamports). */
export const noSpend = (): bigint => 0n

/** Spends the amount the delta guard expects of an outflow. */
export const outflowSpend = (intent: Readonly<Record<string, unknown>>): bigint => expectedAmountLamports(intent) ?? 0n

/** Checked against what the build recorded it sends (rent included), not the intent's amount. */
export const recordedOutflow = (transaction: GuardedTransaction): GuardReading => ({
  intent: { lamports: transaction.build_facts?.amountLamports }
})
