/**
 * Policies, their rule types (the spec's 11 and effect_bounds), the policy decision, the evaluation request, migration and
 * compatibility bodies, and the protocol / portfolio risk configs (spec: Policy decision, Policy,
 * Policy rules, Protocol risk config, Portfolio risk controls, Policies and Risk endpoints).
 * Lamport amounts decode to bigint (JSON integer or decimal string on the wire, see common.ts).
 * Required fields of each rule type are recorded in docs/decisions/policy.md ([n4]).
 */
import * as Schema from "effect/Schema"
import { Amount, AmountString, Base58Address, BasisPoints, IdempotencyKey, Label, Timestamp, Uuid } from "./common.js"
import { isProtocolId, PROTOCOLS } from "./protocol.js"

/** Rules reject unknown fields: a misspelt limit must not silently become "no limit". */
const strictFields = { parseOptions: { onExcessProperty: "error" as const } }

const NonEmptyString = (max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `must be 1-${max} characters` }),
    Schema.maxLength(max, { message: () => `must be 1-${max} characters` })
  )

/**
 * Protocol fields of rules, evaluation and risk configs take only the spec's nine identifiers
 * (protocol.ts's PROTOCOLS); typed as string here so the policy engine stays generic over them.
 */
export const ProtocolId = Schema.String.pipe(
  Schema.filter((value): boolean => isProtocolId(value), { message: () => `must be one of: ${PROTOCOLS.join(", ")}` })
).annotations({ identifier: "ProtocolName" })
/** Upper bound of list sizes in rules, to keep evaluation and storage bounded. */
export const MAX_RULE_LIST = 1000

const List = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Array(item).pipe(Schema.maxItems(MAX_RULE_LIST, { message: () => `must have at most ${MAX_RULE_LIST} entries` }))

const HourUtc = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(0, 23, { message: () => "must be between 0 and 23" })
)

const NonNegativeInt = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.nonNegative({ message: () => "must not be negative" })
)

/** 30 days: the longest sliding window a rate_limit may ask the store to keep. */
export const MAX_RATE_WINDOW_SECONDS = 2_592_000

// ---- the 11 rule types ----

export const SpendingLimitRule = Schema.Struct({
  type: Schema.Literal("spending_limit"),
  maxLamportsPerTx: Schema.optional(Amount),
  maxLamportsPerDay: Schema.optional(Amount),
  requireApprovalAboveLamports: Schema.optional(Amount)
}).annotations({ identifier: "SpendingLimitRule", ...strictFields })
export type SpendingLimitRule = typeof SpendingLimitRule.Type

export const AddressAllowlistRule = Schema.Struct({
  type: Schema.Literal("address_allowlist"),
  addresses: List(Base58Address)
}).annotations({ identifier: "AddressAllowlistRule", ...strictFields })
export type AddressAllowlistRule = typeof AddressAllowlistRule.Type

export const AddressBlocklistRule = Schema.Struct({
  type: Schema.Literal("address_blocklist"),
  addresses: List(Base58Address)
}).annotations({ identifier: "AddressBlocklistRule", ...strictFields })
export type AddressBlocklistRule = typeof AddressBlocklistRule.Type

export const ProgramAllowlistRule = Schema.Struct({
  type: Schema.Literal("program_allowlist"),
  programIds: List(Base58Address)
}).annotations({ identifier: "ProgramAllowlistRule", ...strictFields })
export type ProgramAllowlistRule = typeof ProgramAllowlistRule.Type

export const TokenAllowlistRule = Schema.Struct({
  type: Schema.Literal("token_allowlist"),
  mints: List(Base58Address)
}).annotations({ identifier: "TokenAllowlistRule", ...strictFields })
export type TokenAllowlistRule = typeof TokenAllowlistRule.Type

export const ProtocolAllowlistRule = Schema.Struct({
  type: Schema.Literal("protocol_allowlist"),
  protocols: List(ProtocolId)
}).annotations({ identifier: "ProtocolAllowlistRule", ...strictFields })
export type ProtocolAllowlistRule = typeof ProtocolAllowlistRule.Type

export const RateLimitRule = Schema.Struct({
  type: Schema.Literal("rate_limit"),
  maxTx: NonNegativeInt,
  windowSeconds: Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(1, MAX_RATE_WINDOW_SECONDS, { message: () => `must be between 1 and ${MAX_RATE_WINDOW_SECONDS}` })
  )
}).annotations({ identifier: "RateLimitRule", ...strictFields })
export type RateLimitRule = typeof RateLimitRule.Type

export const TimeWindowRule = Schema.Struct({
  type: Schema.Literal("time_window"),
  startHourUtc: HourUtc,
  endHourUtc: HourUtc
}).annotations({ identifier: "TimeWindowRule", ...strictFields })
export type TimeWindowRule = typeof TimeWindowRule.Type

export const MaxSlippageRule = Schema.Struct({
  type: Schema.Literal("max_slippage"),
  maxBps: BasisPoints
}).annotations({ identifier: "MaxSlippageRule", ...strictFields })
export type MaxSlippageRule = typeof MaxSlippageRule.Type

export const ProtocolRiskRule = Schema.Struct({
  type: Schema.Literal("protocol_risk"),
  protocol: ProtocolId,
  maxSlippageBps: Schema.optional(BasisPoints),
  maxPoolConcentrationBps: Schema.optional(BasisPoints),
  allowedPools: Schema.optional(List(Base58Address)),
  allowedPrograms: Schema.optional(List(Base58Address)),
  oracleDeviationBps: Schema.optional(BasisPoints)
}).annotations({ identifier: "ProtocolRiskRule", ...strictFields })
export type ProtocolRiskRule = typeof ProtocolRiskRule.Type

export const PortfolioRiskRule = Schema.Struct({
  type: Schema.Literal("portfolio_risk"),
  maxDrawdownLamports: Schema.optional(Amount),
  maxDailyLossLamports: Schema.optional(Amount),
  maxExposureBpsPerToken: Schema.optional(BasisPoints),
  maxExposureBpsPerProtocol: Schema.optional(BasisPoints)
}).annotations({ identifier: "PortfolioRiskRule", ...strictFields })
export type PortfolioRiskRule = typeof PortfolioRiskRule.Type

/** A bound on one mint's outflow in an effect_bounds rule. */
export const TokenOutflowBound = Schema.Struct({
  mint: Base58Address,
  maxAmount: AmountString
}).annotations({ identifier: "TokenOutflowBound", ...strictFields })
export type TokenOutflowBound = typeof TokenOutflowBound.Type

/**
 * Beyond the spec's eleven (issue 31): bounds on the transaction's simulated whole effect on the wallet
 * (schemas/effect.ts), applied on every signing path. Every field is optional; an unset one bounds nothing.
 */
export const EffectBoundsRule = Schema.Struct({
  type: Schema.Literal("effect_bounds"),
  /** the most SOL the wallet's own account may lose in one transaction, the fee included */
  maxSolOutflowLamports: Schema.optionalWith(Amount, { exact: true }),
  /** per mint, the most base units that may leave the wallet's token accounts (other mints: unbounded) */
  maxTokenOutflows: Schema.optionalWith(List(TokenOutflowBound), { exact: true }),
  /** the only addresses that may gain SOL or tokens from the transaction (a token account counts for its owner) */
  allowedRecipients: Schema.optionalWith(List(Base58Address), { exact: true }),
  /** no token account of the wallet may get a delegate */
  forbidDelegates: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** no owner, owner program, close, mint, freeze or nonce authority of the wallet's accounts may change */
  forbidAuthorityChanges: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** no account of the wallet may be closed (not even to the wallet) */
  forbidCloses: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "EffectBoundsRule", ...strictFields })
export type EffectBoundsRule = typeof EffectBoundsRule.Type

export const PolicyRule = Schema.Union(
  SpendingLimitRule,
  AddressAllowlistRule,
  AddressBlocklistRule,
  ProgramAllowlistRule,
  TokenAllowlistRule,
  ProtocolAllowlistRule,
  RateLimitRule,
  TimeWindowRule,
  MaxSlippageRule,
  ProtocolRiskRule,
  PortfolioRiskRule,
  EffectBoundsRule
).annotations({ identifier: "PolicyRule" })
export type PolicyRule = typeof PolicyRule.Type
export type PolicyRuleEncoded = typeof PolicyRule.Encoded
export type PolicyRuleType = PolicyRule["type"]

export const POLICY_RULE_TYPES: ReadonlyArray<PolicyRuleType> = [
  "spending_limit",
  "address_allowlist",
  "address_blocklist",
  "program_allowlist",
  "token_allowlist",
  "protocol_allowlist",
  "rate_limit",
  "time_window",
  "max_slippage",
  "protocol_risk",
  "portfolio_risk",
  "effect_bounds"
]

export const PolicyRules = Schema.Array(PolicyRule)

// ---- decision ----

export const Decision = Schema.Literal("allow", "deny", "require_approval")
export type Decision = typeof Decision.Type

export const RiskTier = Schema.Literal("low", "medium", "high", "critical")
export type RiskTier = typeof RiskTier.Type

/** One check of a decision explained (issue 34): what it looked at, the value it saw, its limit, its verdict. */
export const RuleTrace = Schema.Struct({
  /** `policy "<name>" v<version> rules[<i>]`, or the check outside the policies (protocol risk config, value limits, risk tier). */
  source: Schema.String,
  ruleType: Schema.String,
  lookedAt: Schema.Array(Schema.String),
  observed: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  limit: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  verdict: Decision,
  reasons: Schema.Array(Schema.String)
}).annotations({ identifier: "RuleTrace" })
export type RuleTrace = typeof RuleTrace.Type

export const PolicyDecision = Schema.Struct({
  decision: Decision,
  reasons: Schema.Array(Schema.String),
  riskTier: RiskTier,
  /** Every check with what it saw (POST /evaluate with `explain: true`; recorded with a transaction's decision). */
  trace: Schema.optional(Schema.Array(RuleTrace)),
  /** What each shadow policy of the wallet would have decided (issue 34): recorded, never enforced. */
  shadow: Schema.optional(Schema.Array(Schema.Struct({
    policyId: Uuid,
    name: Schema.String,
    version: Schema.Number,
    decision: Decision,
    reasons: Schema.Array(Schema.String),
    /** false: a disagreement with the enforced decision */
    agrees: Schema.Boolean
  })))
})
export type PolicyDecision = typeof PolicyDecision.Type

// ---- policy resource and bodies ----

export const Policy = Schema.Struct({
  id: Uuid,
  walletId: Uuid,
  name: Label,
  version: Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)),
  active: Schema.Boolean,
  /** In shadow (issue 34): evaluated on every real decision of the wallet and recorded beside it, never enforced. */
  shadow: Schema.optional(Schema.Boolean),
  rules: PolicyRules,
  /** Distinct operator approvals each transaction of the wallet needs at the gate while this policy is active (issue 31). */
  approvalsRequired: Schema.optional(Schema.Number),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "Policy" })

/** 1-10 distinct operators (docs/decisions/approvals.md). */
export const ApprovalsRequired = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer from 1 to 10" }),
  Schema.between(1, 10, { message: () => "must be an integer from 1 to 10" })
)
export type Policy = typeof Policy.Type

export const PolicyCreateBody = Schema.Struct({
  walletId: Uuid,
  name: Label,
  active: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Create it in shadow: never enforced (stored inactive), evaluated beside every decision; activating it promotes it. */
  shadow: Schema.optional(Schema.Boolean),
  rules: PolicyRules,
  approvalsRequired: Schema.optional(ApprovalsRequired),
  /** A create sent again with the same key (after a lost answer) answers the policy it made, not a copy. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
})
export type PolicyCreateBody = typeof PolicyCreateBody.Type

export const PolicyUpdateBody = Schema.Struct({
  name: Schema.optional(Label),
  rules: Schema.optional(PolicyRules),
  active: Schema.optional(Schema.Boolean),
  /** null: the policy no longer asks for more than one approval */
  approvalsRequired: Schema.optional(Schema.NullOr(ApprovalsRequired))
})
export type PolicyUpdateBody = typeof PolicyUpdateBody.Type

// ---- evaluation ----

/** The public body of POST /api/v1/evaluate. */
export const EvaluateBody = Schema.Struct({
  walletId: Uuid,
  type: NonEmptyString(64),
  protocol: ProtocolId,
  destination: Schema.optional(Base58Address),
  tokenMint: Schema.optional(Base58Address),
  amountLamports: Schema.optional(Amount),
  programIds: Schema.optional(List(Base58Address)),
  slippageBps: Schema.optional(BasisPoints),
  /** Answer the decision's trace: every rule with what it looked at, the observed value, its limit and verdict. */
  explain: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "EvaluateBody" })
export type EvaluateBody = typeof EvaluateBody.Type

/**
 * The engine-internal request: the public body plus agentId, riskTierHint and timestamp, which only
 * the transaction engine may set (a client must not be able to downgrade its own risk tier).
 */
export const EvaluateRequest = Schema.Struct({
  ...EvaluateBody.fields,
  agentId: Schema.optional(Uuid),
  riskTierHint: Schema.optional(RiskTier),
  timestamp: Schema.optional(Schema.Date)
}).annotations({ identifier: "EvaluateRequest" })
export type EvaluateRequest = typeof EvaluateRequest.Type

// ---- versions, migration, compatibility ----

export const MigrationMode = Schema.Literal("safe", "force", "dry_run")
export type MigrationMode = typeof MigrationMode.Type

export const MigrateBody = Schema.Struct({
  targetVersion: Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.greaterThanOrEqualTo(1, { message: () => "must be at least 1" })
  ),
  mode: Schema.optionalWith(MigrationMode, { default: () => "safe" as const })
})
export type MigrateBody = typeof MigrateBody.Type

export const MigrationResult = Schema.Struct({
  policyId: Uuid,
  mode: MigrationMode,
  fromVersion: Schema.Number,
  targetVersion: Schema.Number,
  /** false for dry_run, for a refused safe migration, and when the target is the current version. */
  applied: Schema.Boolean,
  /** true when the target is the version the policy already is: nothing changed, no version created. */
  unchanged: Schema.optional(Schema.Boolean),
  /** Why nothing changed, when `unchanged`. */
  message: Schema.optional(Schema.String),
  moreRestrictiveOrEqual: Schema.Boolean,
  differences: Schema.Array(Schema.String),
  /** The policy after migration (a new version carrying the target's rules) when applied; the current one when unchanged. */
  policy: Schema.optional(Policy)
})
export type MigrationResult = typeof MigrationResult.Type

/** Rules arrive unchecked: the check itself reports which rule and field is wrong. */
export const CompatibilityCheckBody = Schema.Struct({ rules: Schema.Array(Schema.Unknown) })
export type CompatibilityCheckBody = typeof CompatibilityCheckBody.Type

export const CompatibilityCheckResult = Schema.Struct({
  compatible: Schema.Boolean,
  warnings: Schema.Array(Schema.String),
  errors: Schema.Array(Schema.String)
})
export type CompatibilityCheckResult = typeof CompatibilityCheckResult.Type

// ---- risk configs ----

export const ProtocolRiskConfig = Schema.Struct({
  protocol: ProtocolId,
  version: Schema.String,
  maxSlippageBps: Schema.optional(BasisPoints),
  maxPoolConcentrationBps: Schema.optional(BasisPoints),
  allowedPools: Schema.Array(Base58Address),
  allowedPrograms: Schema.Array(Base58Address),
  oracleDeviationBps: Schema.optional(BasisPoints),
  requireOracleForSwap: Schema.Boolean,
  maxQuoteAgeSeconds: Schema.optional(NonNegativeInt),
  deltaVarianceBpsThreshold: Schema.optional(BasisPoints),
  gaslessEligible: Schema.Boolean,
  updatedAt: Timestamp,
  /** Where each value comes from (issue 34): the defaults, the deployment-wide layer (tenant `*`), or the tenant's own. */
  layers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Literal("default", "deployment", "tenant") }))
}).annotations({ identifier: "ProtocolRiskConfig" })
export type ProtocolRiskConfig = typeof ProtocolRiskConfig.Type

/** PUT /risk/protocols/<protocol>: only provided fields change (null clears an optional bound); creates when absent. */
export const ProtocolRiskConfigUpdate = Schema.Struct({
  version: Schema.optional(Schema.String),
  maxSlippageBps: Schema.optional(Schema.NullOr(BasisPoints)),
  maxPoolConcentrationBps: Schema.optional(Schema.NullOr(BasisPoints)),
  allowedPools: Schema.optional(Schema.Array(Base58Address)),
  allowedPrograms: Schema.optional(Schema.Array(Base58Address)),
  oracleDeviationBps: Schema.optional(Schema.NullOr(BasisPoints)),
  requireOracleForSwap: Schema.optional(Schema.Boolean),
  maxQuoteAgeSeconds: Schema.optional(Schema.NullOr(NonNegativeInt)),
  deltaVarianceBpsThreshold: Schema.optional(Schema.NullOr(BasisPoints)),
  gaslessEligible: Schema.optional(Schema.Boolean)
}).annotations({
  identifier: "ProtocolRiskConfigUpdate",
  ...strictFields
})
export type ProtocolRiskConfigUpdate = typeof ProtocolRiskConfigUpdate.Type

export const PortfolioRiskControls = Schema.Struct({
  walletId: Uuid,
  maxDrawdownLamports: Schema.optional(Amount),
  maxDailyLossLamports: Schema.optional(Amount),
  maxExposureBpsPerToken: Schema.optional(BasisPoints),
  maxExposureBpsPerProtocol: Schema.optional(BasisPoints),
  autoPauseOnBreach: Schema.Boolean,
  updatedAt: Timestamp
}).annotations({ identifier: "PortfolioRiskControls" })
export type PortfolioRiskControls = typeof PortfolioRiskControls.Type

/** PUT /risk/portfolio/<walletId>: only provided fields change (null clears a limit). */
export const PortfolioRiskControlsUpdate = Schema.Struct({
  maxDrawdownLamports: Schema.optional(Schema.NullOr(Amount)),
  maxDailyLossLamports: Schema.optional(Schema.NullOr(Amount)),
  maxExposureBpsPerToken: Schema.optional(Schema.NullOr(BasisPoints)),
  maxExposureBpsPerProtocol: Schema.optional(Schema.NullOr(BasisPoints)),
  autoPauseOnBreach: Schema.optional(Schema.Boolean)
}).annotations({
  identifier: "PortfolioRiskControlsUpdate",
  ...strictFields
})
export type PortfolioRiskControlsUpdate = typeof PortfolioRiskControlsUpdate.Type
