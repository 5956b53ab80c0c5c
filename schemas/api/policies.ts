/** Policy endpoints (spec: Endpoints, Policies) and the wallet's policy list. */
import { PolicyBacktest, PolicyBacktestBody } from "../policyBacktest.js"
import * as Schema from "effect/Schema"
import { Page, PaginationQuery, Uuid } from "../common.js"
import {
  CompatibilityCheckBody,
  CompatibilityCheckResult,
  EvaluateBody,
  MigrateBody,
  MigrationResult,
  Policy,
  PolicyCreateBody,
  PolicyDecision,
  PolicyUpdateBody
} from "../policy.js"
import { endpoint } from "./endpoint.js"
import { WalletIdParams } from "./wallets.js"

export const PolicyIdParams = Schema.Struct({ policyId: Uuid })

/** `GET /policies`: the tenant's policies, optionally of one wallet and by `active` (`true` / `false`). */
export const PolicyListQuery = Schema.extend(
  PaginationQuery,
  Schema.Struct({
    walletId: Schema.optional(Uuid),
    active: Schema.optional(Schema.BooleanFromString.annotations({ message: () => ({ message: "must be true or false", override: true }) }))
  })
)

const VersionNumber = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.greaterThanOrEqualTo(1, { message: () => "must be at least 1" })
).annotations({ message: () => "must be an integer of at least 1" })

export const PolicyVersionParams = Schema.Struct({ policyId: Uuid, version: VersionNumber })

export const PoliciesApi = {
  create: endpoint("policies", "POST", "/api/v1/policies", {
    summary: "Create a policy for a wallet (200 for a create repeated with its idempotencyKey)",
    body: PolicyCreateBody,
    success: Policy,
    successStatuses: [201, 200]
  }),
  compatibilityCheck: endpoint("policies", "POST", "/api/v1/policies/compatibility-check", {
    summary: "Check a rule list without storing it",
    body: CompatibilityCheckBody,
    success: CompatibilityCheckResult
  }),
  list: endpoint("policies", "GET", "/api/v1/policies", {
    summary: "The policies this key can see, oldest first (filters walletId, active)",
    query: PolicyListQuery,
    success: Page("policies", Policy)
  }),
  get: endpoint("policies", "GET", "/api/v1/policies/:policyId", { summary: "A policy", params: PolicyIdParams, success: Policy }),
  update: endpoint("policies", "PUT", "/api/v1/policies/:policyId", {
    summary: "Update a policy (a new version)",
    params: PolicyIdParams,
    body: PolicyUpdateBody,
    success: Policy
  }),
  versions: endpoint("policies", "GET", "/api/v1/policies/:policyId/versions", {
    summary: "A policy's versions",
    params: PolicyIdParams,
    query: PaginationQuery,
    success: Page("versions", Policy)
  }),
  version: endpoint("policies", "GET", "/api/v1/policies/:policyId/versions/:version", {
    summary: "One version of a policy",
    params: PolicyVersionParams,
    success: Policy
  }),
  migrate: endpoint("policies", "POST", "/api/v1/policies/:policyId/migrate", {
    summary: "Move a policy to the rules of another version",
    params: PolicyIdParams,
    body: MigrateBody,
    success: MigrationResult
  }),
  listByWallet: endpoint("policies", "GET", "/api/v1/wallets/:walletId/policies", {
    summary: "A wallet's policies",
    params: WalletIdParams,
    query: PaginationQuery,
    success: Page("policies", Policy)
  }),
  evaluate: endpoint("policies", "POST", "/api/v1/evaluate", {
    summary: "Evaluate a hypothetical intent against the wallet's policies",
    body: EvaluateBody,
    success: PolicyDecision
  }),
  backtest: endpoint("policies", "POST", "/api/v1/policies/backtest", {
    summary: "Replay a candidate policy over a wallet's recorded transactions of the last N days: per transaction the decision it would have had, with its trace, and a summary",
    body: PolicyBacktestBody,
    success: PolicyBacktest
  })
}
