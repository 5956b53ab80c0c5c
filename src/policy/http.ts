/**
 * Policy routes (spec: Endpoints, Policies) and the wallet's policy list. Rules arrive as unknown
 * JSON and are validated rule by rule, so a 400 names the rule and field (`rules[0].maxBps: ...`).
 * Lists page like the wallet list: `limit` (default 50, max 100) and `offset` ([n28]).
 */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import {
  CompatibilityCheckBody,
  EvaluateBody,
  MigrateBody,
  PolicyCreateBody,
  PolicyUpdateBody
} from "../../schemas/policy.js"
import { ValidationError } from "../../schemas/errors.js"
import { actingAgent, Caller } from "../gateway/caller.js"
import { failureReply, ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, decodeWith, jsonBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { checkCompatibility } from "./compatibility.js"
import { PolicyEngine } from "./policyEngine.js"

/**
 * The evaluation request's engine-only fields (spec: "the engine-internal evaluation request also carries
 * agentId, riskTierHint and timestamp"). A what-if with a caller's own risk tier, instant or agent would
 * answer for a transaction that cannot happen (a critical flash loan previewed as low) and write an
 * audit event in another agent's name, so they are refused, not ignored; an agent key's what-if is its own.
 */
const ENGINE_ONLY_FIELDS = ["agentId", "riskTierHint", "timestamp"] as const
import { PolicyService } from "./policyService.js"
import { PoliciesApi, PolicyListQuery } from "../../schemas/api/policies.js"

const UncheckedRules = Schema.Array(Schema.Unknown)
const CreateBody = Schema.Struct({ ...PolicyCreateBody.fields, rules: UncheckedRules })
const UpdateBody = Schema.Struct({ ...PolicyUpdateBody.fields, rules: Schema.optional(UncheckedRules) })
const VersionNumber = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.greaterThanOrEqualTo(1, { message: () => "must be at least 1" })
).annotations({ message: () => "must be an integer of at least 1" })

const policyId = pathParam("policyId", Uuid)

/** POST /policies/evaluate: a what-if of the policy engine (served alone by the policy engine's unit tests). */
export const evaluateRoute = route(
  PoliciesApi.evaluate,
  Effect.gen(function* () {
    const raw = yield* jsonBody
    const engineOnly = ENGINE_ONLY_FIELDS.find((field) => typeof raw === "object" && raw !== null && field in raw)
    if (engineOnly !== undefined) {
      return yield* Effect.fail(new ValidationError({ message: `${engineOnly}: set by the transaction engine only, not by a caller`, field: engineOnly }))
    }
    const body = yield* decodeWith(EvaluateBody, raw)
    const caller = yield* Caller
    const agentId = actingAgent(caller)
    return ok(yield* (yield* PolicyEngine).evaluate(caller, agentId === null ? body : { ...body, agentId }))
  })
)

export const policyRoutes = [
  route(
    PoliciesApi.create,
    Effect.gen(function* () {
      const body = yield* decodeBody(CreateBody)
      // A create repeated with its idempotency key answers the policy it made: 200, not a second 201.
      const { policy, created } = yield* (yield* PolicyService).create(yield* Caller, body)
      return ok(policy, created ? 201 : 200)
    })
  ),
  route(
    PoliciesApi.compatibilityCheck,
    Effect.gen(function* () {
      const body = yield* decodeBody(CompatibilityCheckBody)
      return ok(checkCompatibility(body.rules))
    })
  ),
  route(
    PoliciesApi.list,
    Effect.gen(function* () {
      const query = yield* decodeQuery(PolicyListQuery)
      return ok(yield* (yield* PolicyService).list(yield* Caller, query))
    })
  ),
  route(
    PoliciesApi.get,
    Effect.gen(function* () {
      const id = yield* policyId
      return ok(yield* (yield* PolicyService).get(yield* Caller, id))
    })
  ),
  route(
    PoliciesApi.update,
    Effect.gen(function* () {
      const id = yield* policyId
      const body = yield* decodeBody(UpdateBody)
      return ok(yield* (yield* PolicyService).update(yield* Caller, id, body))
    })
  ),
  route(
    PoliciesApi.versions,
    Effect.gen(function* () {
      const id = yield* policyId
      const page = yield* decodeQuery(PaginationQuery)
      return ok(yield* (yield* PolicyService).versions(yield* Caller, id, page))
    })
  ),
  route(
    PoliciesApi.version,
    Effect.gen(function* () {
      const id = yield* policyId
      const version = yield* pathParam("version", VersionNumber)
      return ok(yield* (yield* PolicyService).version(yield* Caller, id, version))
    })
  ),
  route(
    PoliciesApi.migrate,
    Effect.gen(function* () {
      const id = yield* policyId
      const body = yield* decodeBody(MigrateBody)
      const outcome = yield* (yield* PolicyService).migrate(yield* Caller, id, body.targetVersion, body.mode)
      return outcome.refused === undefined ? ok(outcome.result) : failureReply(outcome.refused, outcome.result)
    })
  ),
  route(
    PoliciesApi.listByWallet,
    Effect.gen(function* () {
      const walletId = yield* pathParam("walletId", Uuid)
      const page = yield* decodeQuery(PaginationQuery)
      return ok(yield* (yield* PolicyService).listForWallet(yield* Caller, walletId, page))
    })
  ),
  evaluateRoute
]
