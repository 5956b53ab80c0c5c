/**
 * Agents: the record, its autonomy configuration and state, budgets, capability manifests and the
 * agent endpoints' bodies (spec: Agent, Agents endpoints; [n5] [n20] [n27] in docs/decisions/schemas.md).
 */
import * as Schema from "effect/Schema"
import { AgentKeyRequest, IssuedApiKey } from "./apiKey.js"
import { Amount, IdempotencyKey, Label, PageFields, Timestamp, Uuid } from "./common.js"
import { TransactionType, unknownIntentFields } from "./intent.js"
import { ProtocolId } from "./protocol.js"
import { ValueLimitState } from "./valueLimits.js"

/** A Literal union's own message only shows with `override` (else each member reports "Expected x"). */
const mustBeOneOf = (values: ReadonlyArray<string>) => () => ({
  message: `must be one of: ${values.join(", ")}`,
  override: true
})

const intBetween = (min: number, max: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(min, max, { message: () => `must be between ${min} and ${max}` })
  )

const boundedText = (max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `must be 1-${max} characters` }),
    Schema.maxLength(max, { message: () => `must be 1-${max} characters` })
  )

const IntentObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => ({ message: "must be a JSON object", override: true })
})

/** Agents start `stopped`; there is no `created` state (the spec's transitions never leave it). */
export const AGENT_STATUSES = ["stopped", "running", "paused"] as const
export const AgentStatus = Schema.Literal(...AGENT_STATUSES).annotations({ message: mustBeOneOf(AGENT_STATUSES) })
export type AgentStatus = typeof AgentStatus.Type

export const EXECUTION_MODES = ["autonomous", "supervised"] as const
export const ExecutionMode = Schema.Literal(...EXECUTION_MODES).annotations({ message: mustBeOneOf(EXECUTION_MODES) })
export type ExecutionMode = typeof ExecutionMode.Type

export const DEFAULT_ALLOWED_INTENTS: ReadonlyArray<TransactionType> = ["transfer_sol", "transfer_spl", "query_balance"]

// ---- autonomy configuration ([n27] ranges) --------------------------------------------------

export const AUTONOMY_LIMITS = {
  cadenceSeconds: { min: 1, max: 86_400, default: 60 },
  maxActionsPerHour: { min: 1, max: 3_600, default: 60 },
  cooldownSeconds: { min: 0, max: 604_800, default: 0 },
  maxRuns: { min: 1, max: 1_000_000, default: 1_000_000 },
  steps: 32,
  rules: 32,
  conditions: 16
} as const

const CooldownSeconds = Schema.optionalWith(
  intBetween(AUTONOMY_LIMITS.cooldownSeconds.min, AUTONOMY_LIMITS.cooldownSeconds.max),
  { exact: true, default: () => AUTONOMY_LIMITS.cooldownSeconds.default }
)
const MaxRuns = Schema.optionalWith(intBetween(AUTONOMY_LIMITS.maxRuns.min, AUTONOMY_LIMITS.maxRuns.max), {
  exact: true,
  default: () => AUTONOMY_LIMITS.maxRuns.default
})
const EntryId = boundedText(64)

export const AutonomyStep = Schema.Struct({
  id: EntryId,
  type: TransactionType,
  protocol: ProtocolId,
  /** May hold template variables such as {{tick}}; decoded by type when the step runs. */
  intent: Schema.optionalWith(IntentObject, { exact: true, default: () => ({}) }),
  cooldownSeconds: CooldownSeconds,
  maxRuns: MaxRuns,
  paperOnly: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
  gasless: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false })
}).pipe(Schema.filter((step) => unknownIntentFields(step.type, step.intent)))
export type AutonomyStep = typeof AutonomyStep.Type

export const CONDITION_METRICS = ["tick", "balance_lamports", "known_wallets_count"] as const
export const CONDITION_OPS = ["gt", "gte", "lt", "lte", "eq"] as const

export const Condition = Schema.Struct({
  metric: Schema.Literal(...CONDITION_METRICS).annotations({ message: mustBeOneOf(CONDITION_METRICS) }),
  op: Schema.Literal(...CONDITION_OPS).annotations({ message: mustBeOneOf(CONDITION_OPS) }),
  value: Schema.Number.pipe(Schema.finite({ message: () => "must be a finite number" }))
})
export type Condition = typeof Condition.Type

export const RuleAction = Schema.Struct({
  type: TransactionType,
  protocol: ProtocolId,
  intent: Schema.optionalWith(IntentObject, { exact: true, default: () => ({}) })
}).pipe(Schema.filter((action) => unknownIntentFields(action.type, action.intent)))

export const AutonomyRule = Schema.Struct({
  id: EntryId,
  when: Schema.Array(Condition).pipe(
    Schema.minItems(1, { message: () => `must hold 1-${AUTONOMY_LIMITS.conditions} conditions` }),
    Schema.maxItems(AUTONOMY_LIMITS.conditions, { message: () => `must hold 1-${AUTONOMY_LIMITS.conditions} conditions` })
  ),
  then: RuleAction,
  cooldownSeconds: CooldownSeconds,
  maxRuns: MaxRuns
})
export type AutonomyRule = typeof AutonomyRule.Type

/** Step and rule ids key their run counters, so they must be unique within their list. */
const duplicateId =
  (what: string) =>
  (entries: ReadonlyArray<{ readonly id: string }>): true | Schema.FilterIssue => {
    const seen = new Set<string>()
    for (const [index, entry] of entries.entries()) {
      if (seen.has(entry.id)) return { path: [index, "id"], message: `duplicate ${what} id '${entry.id}'` }
      seen.add(entry.id)
    }
    return true
  }

const AutonomySteps = Schema.Array(AutonomyStep).pipe(
  Schema.maxItems(AUTONOMY_LIMITS.steps, { message: () => `must hold at most ${AUTONOMY_LIMITS.steps} steps` }),
  Schema.filter(duplicateId("step"))
)
const AutonomyRules = Schema.Array(AutonomyRule).pipe(
  Schema.maxItems(AUTONOMY_LIMITS.rules, { message: () => `must hold at most ${AUTONOMY_LIMITS.rules} rules` }),
  Schema.filter(duplicateId("rule"))
)

export const Autonomy = Schema.Struct({
  enabled: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
  mode: Schema.optionalWith(Schema.Literal("execute", "paper").annotations({ message: mustBeOneOf(["execute", "paper"]) }), {
    exact: true,
    default: () => "execute" as const
  }),
  cadenceSeconds: Schema.optionalWith(
    intBetween(AUTONOMY_LIMITS.cadenceSeconds.min, AUTONOMY_LIMITS.cadenceSeconds.max),
    { exact: true, default: () => AUTONOMY_LIMITS.cadenceSeconds.default }
  ),
  maxActionsPerHour: Schema.optionalWith(
    intBetween(AUTONOMY_LIMITS.maxActionsPerHour.min, AUTONOMY_LIMITS.maxActionsPerHour.max),
    { exact: true, default: () => AUTONOMY_LIMITS.maxActionsPerHour.default }
  ),
  steps: Schema.optionalWith(AutonomySteps, { exact: true, default: () => [] }),
  rules: Schema.optionalWith(AutonomyRules, { exact: true, default: () => [] })
})
export type Autonomy = typeof Autonomy.Type
export type AutonomyEncoded = typeof Autonomy.Encoded

// ---- agent record and bodies ----------------------------------------------------------------

const TransactionTypes = Schema.Array(TransactionType)
const ProtocolIds = Schema.Array(ProtocolId)

export const Agent = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  walletId: Uuid,
  status: AgentStatus,
  executionMode: ExecutionMode,
  allowedIntents: TransactionTypes,
  /** Absent: any protocol the intent types allow. */
  allowedProtocols: Schema.optional(ProtocolIds),
  budgetLamports: Schema.optional(Amount),
  autonomy: Autonomy,
  /** Why the agent is paused (operator reason, or the delta guard / budget breach). */
  pausedReason: Schema.optional(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type Agent = typeof Agent.Type
export type AgentEncoded = typeof Agent.Encoded

export const AgentList = Schema.Struct({ agents: Schema.Array(Agent), ...PageFields })
export const AgentIdParams = Schema.Struct({ agentId: Uuid })

export const CreateAgentBody = Schema.Struct({
  name: Label,
  walletId: Schema.optionalWith(Uuid, { exact: true }),
  executionMode: Schema.optionalWith(ExecutionMode, { exact: true, default: () => "autonomous" as const }),
  allowedIntents: Schema.optionalWith(TransactionTypes, { exact: true, default: () => [...DEFAULT_ALLOWED_INTENTS] }),
  allowedProtocols: Schema.optionalWith(ProtocolIds, { exact: true }),
  budgetLamports: Schema.optionalWith(Amount, { exact: true }),
  autonomy: Schema.optionalWith(Autonomy, { exact: true }),
  /** Issue the agent's own API key in the same call (issue 36): needs the `keys` scope. */
  apiKey: Schema.optionalWith(AgentKeyRequest, { exact: true }),
  /** A create sent again with the same key (after a lost answer) answers the agent it made, not a second one. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
})
export type CreateAgentBody = typeof CreateAgentBody.Type

/** The answer of create: the agent, and its key (with the secret, shown this once) when `apiKey` asked for one. */
export const AgentCreated = Schema.Struct({ ...Agent.fields, apiKey: Schema.optional(IssuedApiKey) })

export const UpdateCapabilitiesBody = Schema.Struct({
  allowedIntents: TransactionTypes,
  allowedProtocols: Schema.optionalWith(ProtocolIds, { exact: true }),
  executionMode: Schema.optionalWith(ExecutionMode, { exact: true }),
  autonomy: Schema.optionalWith(Autonomy, { exact: true }),
  budgetLamports: Schema.optionalWith(Amount, { exact: true })
})
export type UpdateCapabilitiesBody = typeof UpdateCapabilitiesBody.Type

export const PauseBody = Schema.Struct({ reason: Schema.optionalWith(boundedText(256), { exact: true }) })
export type PauseBody = typeof PauseBody.Type

export const AgentBudget = Schema.Struct({
  agentId: Uuid,
  walletId: Uuid,
  /** Absent when the agent has no budget. */
  budgetLamports: Schema.optional(Amount),
  remainingLamports: Schema.optional(Amount),
  spentLamportsToday: Amount,
  updatedAt: Timestamp,
  /** The agent's value limits with their use now (issue 34): used, remaining and window of each. */
  valueLimits: Schema.optional(Schema.Array(ValueLimitState))
})
export type AgentBudget = typeof AgentBudget.Type

// ---- capability manifests ([n20]) -----------------------------------------------------------

export const MAX_MANIFEST_TTL_SECONDS = 2_592_000
export const DEFAULT_MANIFEST_TTL_SECONDS = 3_600

export const CapabilityManifest = Schema.Struct({
  issuer: Schema.String,
  version: Schema.String,
  agentId: Uuid,
  allowedIntents: TransactionTypes,
  allowedProtocols: ProtocolIds,
  issuedAt: Timestamp,
  expiresAt: Timestamp,
  nonce: Schema.String,
  /** HMAC-SHA256, hex. */
  signature: Schema.String
})
export type CapabilityManifest = typeof CapabilityManifest.Type

const NonEmptyTypes = TransactionTypes.pipe(Schema.minItems(1, { message: () => "must list at least one transaction type" }))
const NonEmptyProtocols = ProtocolIds.pipe(Schema.minItems(1, { message: () => "must list at least one protocol" }))
const TtlSeconds = intBetween(1, MAX_MANIFEST_TTL_SECONDS)

/** The issue body as sent: canonical names or their aliases `intents`, `protocols`, `ttl`. */
const IssueManifestWire = Schema.Struct({
  allowedIntents: Schema.optionalWith(NonEmptyTypes, { exact: true }),
  intents: Schema.optionalWith(NonEmptyTypes, { exact: true }),
  allowedProtocols: Schema.optionalWith(NonEmptyProtocols, { exact: true }),
  protocols: Schema.optionalWith(NonEmptyProtocols, { exact: true }),
  ttlSeconds: Schema.optionalWith(TtlSeconds, { exact: true }),
  ttl: Schema.optionalWith(TtlSeconds, { exact: true })
}).pipe(
  Schema.filter((body) => {
    const missing: Array<Schema.FilterIssue> = []
    if (body.allowedIntents === undefined && body.intents === undefined) {
      missing.push({ path: ["allowedIntents"], message: "is missing" })
    }
    if (body.allowedProtocols === undefined && body.protocols === undefined) {
      missing.push({ path: ["allowedProtocols"], message: "is missing" })
    }
    return missing.length === 0 ? true : missing
  })
)

/**
 * Body of `POST /agents/<agentId>/manifest/issue`. Aliases are accepted; when a canonical name and its
 * alias are both given, the canonical one wins. Encodes back with canonical names only.
 */
export const IssueManifestBody = Schema.transform(
  IssueManifestWire,
  Schema.Struct({ allowedIntents: NonEmptyTypes, allowedProtocols: NonEmptyProtocols, ttlSeconds: TtlSeconds }),
  {
    strict: true,
    decode: (body) => ({
      allowedIntents: body.allowedIntents ?? body.intents ?? [],
      allowedProtocols: body.allowedProtocols ?? body.protocols ?? [],
      ttlSeconds: body.ttlSeconds ?? body.ttl ?? DEFAULT_MANIFEST_TTL_SECONDS
    }),
    encode: (body) => body
  }
)
export type IssueManifestBody = typeof IssueManifestBody.Type

/**
 * Body of `POST /agents/<agentId>/manifest/verify`. Only the outer shape is checked here: a manifest
 * that is malformed, tampered or expired is answered `{ valid: false, reason }`, not a 400.
 */
export const VerifyManifestBody = Schema.Struct({ manifest: IntentObject })
export type VerifyManifestBody = typeof VerifyManifestBody.Type

/** `POST .../manifest/revoke`: the nonce, or the manifest itself (its nonce is used; its other fields are not read). */
export const RevokeManifestBody = Schema.Struct({
  nonce: Schema.optionalWith(boundedText(128), { exact: true }),
  manifest: Schema.optionalWith(Schema.Struct({ nonce: boundedText(128) }, { key: Schema.String, value: Schema.Unknown }), { exact: true }),
  reason: Schema.optionalWith(boundedText(256), { exact: true })
}).pipe(Schema.filter((body) => (body.nonce === undefined && body.manifest === undefined ? { path: ["nonce"], message: "is missing" } : true)))
export type RevokeManifestBody = typeof RevokeManifestBody.Type

export const ManifestVerification = Schema.Struct({ valid: Schema.Boolean, reason: Schema.String })
export type ManifestVerification = typeof ManifestVerification.Type

/** Header carrying a manifest for execute: base64 of the manifest's JSON. */
export const AGENT_MANIFEST_HEADER = "x-agent-manifest"
export const ManifestFromHeader = Schema.compose(Schema.StringFromBase64, Schema.parseJson(IntentObject))

/**
 * Body of `POST /agents/<agentId>/execute`. A manifest rides in `manifest` or in the x-agent-manifest
 * header; the body field wins when both are present. Its contents are verified by the service.
 */
export const ExecuteBody = Schema.Struct({
  type: TransactionType,
  protocol: ProtocolId,
  intent: Schema.optionalWith(IntentObject, { exact: true, default: () => ({}) }),
  gasless: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true }),
  manifest: Schema.optionalWith(IntentObject, { exact: true })
})
export type ExecuteBody = typeof ExecuteBody.Type

// ---- autonomy state ([n5]) ------------------------------------------------------------------

export const AutonomyStepState = Schema.Struct({
  id: Schema.String,
  runs: Schema.Number,
  lastRunAt: Schema.NullOr(Timestamp),
  nextEligibleAt: Schema.NullOr(Timestamp)
})

export const AutonomyRuleState = Schema.Struct({
  id: Schema.String,
  runs: Schema.Number,
  lastFiredAt: Schema.NullOr(Timestamp)
})

export const AutonomyState = Schema.Struct({
  agentId: Uuid,
  status: AgentStatus,
  enabled: Schema.Boolean,
  mode: Schema.Literal("execute", "paper"),
  /** Whether this agent's actor is alive right now (on any instance holding its lease). */
  running: Schema.Boolean,
  tick: Schema.Number,
  lastTickAt: Schema.NullOr(Timestamp),
  nextTickAt: Schema.NullOr(Timestamp),
  actionsLastHour: Schema.Number,
  steps: Schema.Array(AutonomyStepState),
  rules: Schema.Array(AutonomyRuleState),
  lastError: Schema.NullOr(Schema.String)
})
export type AutonomyState = typeof AutonomyState.Type
