/**
 * Policy routes (spec: Endpoints, Policies) and the wallet's policy list. Rules arrive as unknown
 * JSON and are validated rule by rule, so a 400 names the rule and field (`rules[0].maxBps: ...`).
 * Lists page like the wallet list: `limit` (default 50, max 100) and `offset` ([n28]).
 */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import {
  CompatibilityCheckBody,
  EvaluateRequest,
  MigrateBody,
  PolicyCreateBody,
  PolicyUpdateBody
} from "../../schemas/policy.js"
import { Caller } from "../gateway/caller.js"
import { failureReply, ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { checkCompatibility } from "./compatibility.js"
import { PolicyEngine } from "./policyEngine.js"
import { PolicyService } from "./policyService.js"
import { PoliciesApi } from "../../schemas/api/policies.js"

const UncheckedRules = Schema.Array(Schema.Unknown)
const CreateBody = Schema.Struct({ ...PolicyCreateBody.fields, rules: UncheckedRules })
const UpdateBody = Schema.Struct({ ...PolicyUpdateBody.fields, rules: Schema.optional(UncheckedRules) })
const VersionNumber = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.greaterThanOrEqualTo(1, { message: () => "must be at least 1" })
).annotations({ message: () => "must be an integer of at least 1" })

const policyId = pathParam("policyId", Uuid)

export const policyRoutes = [
  route(
    PoliciesApi.create,
    Effect.gen(function* () {
      const body = yield* decodeBody(CreateBody)
      return ok(yield* (yield* PolicyService).create(yield* Caller, body), 201)
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
      const versions = yield* (yield* PolicyService).versions(yield* Caller, id)
      return ok({ versions: versions.slice(page.offset, page.offset + page.limit), total: versions.length, limit: page.limit, offset: page.offset })
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
  route(
    PoliciesApi.evaluate,
    Effect.gen(function* () {
      const body = yield* decodeBody(EvaluateRequest)
      return ok(yield* (yield* PolicyEngine).evaluate(yield* Caller, body))
    })
  )
]
