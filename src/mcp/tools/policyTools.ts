/** Policy tools (spec: Tool interface, Policy; plus update and versions, which the gateway also serves). */
import { Schema } from "effect"
import { PoliciesApi } from "../../../schemas/api/policies.js"
import { Amount, Base58Address, IdempotencyKeyArg, Limit, Offset, PolicyId, ProtocolName, Rules, TransactionType, WalletId } from "../args.js"
import { apiPath, omit, tool } from "../toolDefinition.js"

const Version = Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.positive({ message: () => "must be positive" }))

export const policyTools = [
  tool({
    name: "policy.create",
    description: "Create a policy for a wallet (rules: spending_limit, address_allowlist, program_allowlist, time_window, rate_limit, ...); active defaults to true.",
    endpoint: PoliciesApi.create,
    args: Schema.Struct({ walletId: WalletId, name: Schema.String, rules: Rules, active: Schema.optional(Schema.Boolean), idempotencyKey: Schema.optional(IdempotencyKeyArg) }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: "/api/v1/policies", body: args })
  }),
  tool({
    name: "policy.list",
    description: "The policies this key can see, oldest first; optionally of one wallet (walletId) and by active.",
    endpoint: PoliciesApi.list,
    args: Schema.Struct({ walletId: Schema.optional(WalletId), active: Schema.optional(Schema.Boolean), limit: Schema.optional(Limit), offset: Schema.optional(Offset) }),
    readOnly: true,
    request: (args) => ({ method: "GET", path: "/api/v1/policies", query: args })
  }),
  tool({
    name: "policy.list_wallet",
    description: "The policies of a wallet.",
    endpoint: PoliciesApi.listByWallet,
    args: Schema.Struct({ walletId: WalletId }),
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}/policies` })
  }),
  tool({
    name: "policy.compatibility_check",
    description: "Check a rule set for errors and conflicts without saving it.",
    endpoint: PoliciesApi.compatibilityCheck,
    args: Schema.Struct({ rules: Rules }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: "/api/v1/policies/compatibility-check", body: args })
  }),
  tool({
    name: "policy.migrate",
    description: "Migrate a policy to one of its versions (mode safe by default: only to a version at least as restrictive).",
    endpoint: PoliciesApi.migrate,
    args: Schema.Struct({ policyId: PolicyId, targetVersion: Version, mode: Schema.optional(Schema.Literal("safe", "force", "dry-run")) }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/policies/${args.policyId}/migrate`, body: omit(args, "policyId") })
  }),
  tool({
    name: "policy.evaluate",
    description: "Ask what the wallet's policies would decide for an action (allow, deny, require_approval), without doing it.",
    endpoint: PoliciesApi.evaluate,
    args: Schema.Struct({
      walletId: WalletId,
      type: TransactionType,
      protocol: ProtocolName,
      destination: Schema.optional(Base58Address),
      tokenMint: Schema.optional(Base58Address),
      amountLamports: Schema.optional(Amount),
      programIds: Schema.optional(Schema.Array(Base58Address)),
      slippageBps: Schema.optional(Schema.Number)
    }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: "/api/v1/evaluate", body: args })
  }),
  tool({
    name: "policy.update",
    description: "Change a policy's name, rules or active flag; this creates a new version.",
    endpoint: PoliciesApi.update,
    args: Schema.Struct({ policyId: PolicyId, name: Schema.optional(Schema.String), rules: Schema.optional(Rules), active: Schema.optional(Schema.Boolean) }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "PUT", path: apiPath`/api/v1/policies/${args.policyId}`, body: omit(args, "policyId") })
  }),
  tool({
    name: "policy.versions",
    description: "All versions of a policy.",
    endpoint: PoliciesApi.versions,
    args: Schema.Struct({ policyId: PolicyId }),
    readOnly: true,
    request: ({ policyId }) => ({ method: "GET", path: apiPath`/api/v1/policies/${policyId}/versions` })
  }),
  tool({
    name: "policy.version",
    description: "One version of a policy.",
    endpoint: PoliciesApi.version,
    args: Schema.Struct({ policyId: PolicyId, version: Version }),
    readOnly: true,
    request: ({ policyId, version }) => ({ method: "GET", path: apiPath`/api/v1/policies/${policyId}/versions/${version}` })
  })
]
