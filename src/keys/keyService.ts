/**
 * Issue, list, revoke and rotate API keys (issue 36; docs/decisions/access.md "Issued keys"). A key is
 * written with its audit event in one SQL transaction whose commit announces it to every gateway process
 * (keyRepo.ts); this process applies it at once. The secret exists only in the answer of issue and rotate.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { ApiKey, ApiKeysQuery, IssuedApiKey, RotateApiKeyBody } from "../../schemas/apiKey.js"
import { Conflict, InvalidState, NotFound } from "../../schemas/errors.js"
import { isUniqueViolation } from "../db/uniqueViolation.js"
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"
import { AuditLog } from "../audit/auditLog.js"
import type { CallerInfo } from "../gateway/caller.js"
import { KeyAgents } from "./keyAgents.js"
import { newKey } from "./keyFormat.js"
import { checkGrant, type KeyGrant, type KeyRequest } from "./keyGrant.js"
import { ApiKeyRepo } from "./keyRepo.js"
import { IssuedKeys } from "./issuedKeys.js"

const notFound = (id: string) => new NotFound({ resource: "api key", id })

export class KeyService extends Effect.Service<KeyService>()("KeyService", {
  dependencies: [ApiKeyRepo.Default, IssuedKeys.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ApiKeyRepo
    const issuedKeys = yield* IssuedKeys
    const agents = yield* KeyAgents
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient

    const event = (caller: CallerInfo, key: ApiKey, eventType: string, message: string, metadata: Record<string, unknown>) =>
      audit.record({
        tenantId: key.tenantId,
        eventType,
        message,
        metadata: { keyId: key.id, prefix: key.prefix, by: caller.keyId, ...metadata },
        agentId: key.agentId,
        entityType: "api_key",
        category: "access",
        traceId: caller.traceId
      })

    /** Checks a request against what the caller may grant; the agent must exist unless the caller is creating it. */
    const prepare = (caller: CallerInfo, request: KeyRequest, options: { readonly agentIsNew?: boolean } = {}) =>
      Effect.gen(function* () {
        const grant = yield* checkGrant(caller, request, Date.now())
        if (grant.agentId !== null && options.agentIsNew !== true && !(yield* agents.exists(grant.tenant, grant.agentId))) {
          return yield* Effect.fail(new NotFound({ resource: "agent", id: grant.agentId }))
        }
        return grant
      })

    /** Writes a prepared key and its audit event (inside the caller's SQL transaction when there is one). */
    const store = (caller: CallerInfo, grant: KeyGrant, rotatedFrom: string | null, idempotency?: { readonly key: string; readonly request: string }) =>
      Effect.gen(function* () {
        const made = newKey()
        const key = yield* repo.insert({
          id: made.id, tenantId: grant.tenant, scopes: grant.scopes, agentId: grant.agentId, label: grant.label,
          digest: made.digest, createdBy: caller.keyId, expiresAt: grant.expiresAt, rotatedFrom, idempotency
        })
        yield* event(caller, key, "api_key.issued", `api key ${key.prefix} issued`, {
          scopes: key.scopes, expiresAt: key.expiresAt, label: key.label, rotatedFrom
        })
        const issued: IssuedApiKey = { ...key, secret: made.secret }
        return issued
      })

    /** Makes this process use a committed change now (the others hear its NOTIFY). */
    const announce = (...ids: ReadonlyArray<string>) => Effect.forEach(ids, (id) => issuedKeys.refresh(id), { discard: true })

    /**
     * The key an earlier issue with the idempotency key made: a 409 naming it (its secret was only in that
     * answer: rotate it for a new one, or revoke it), or a 400 when it was asked for something else.
     */
    const issuedBefore = (tenant: string, key: string, request: string) =>
      Effect.gen(function* () {
        const earlier = yield* repo.byIdempotencyKey(tenant, key)
        if (earlier === undefined) return yield* Effect.fail(idempotencyKeyTaken(key, undefined))
        if (earlier.request !== request) return yield* Effect.fail(idempotencyKeyTaken(key, { resource: "api key", id: earlier.key.id }))
        return yield* Effect.fail(new Conflict({
          message: `api key ${earlier.key.id} was issued by this request; its secret was only in that answer: rotate it (POST /api/v1/keys/${earlier.key.id}/rotate) for a new secret, or revoke it`,
          currentState: earlier.key.status
        }))
      })

    const issue = (caller: CallerInfo, request: KeyRequest & { readonly idempotencyKey?: string | undefined }) =>
      Effect.gen(function* () {
        const grant = yield* prepare(caller, request)
        const key = request.idempotencyKey
        // what the key stands for: the grant as checked (tenant, scopes, agent, expiry, label)
        const idempotency = key === undefined ? undefined : { key, request: JSON.stringify({ ...grant, expiresAt: grant.expiresAt?.toISOString() ?? null }) }
        const issued = yield* sql.withTransaction(store(caller, grant, null, idempotency)).pipe(
          Effect.orDie,
          // the key was used before (a repeat, or an issue sent at the same time): the unique index refused this one
          Effect.catchSomeDefect((defect) =>
            idempotency !== undefined && isUniqueViolation(defect, "api_keys_idempotency") ? Option.some(issuedBefore(grant.tenant, idempotency.key, idempotency.request)) : Option.none()
          )
        )
        yield* announce(issued.id)
        return issued
      }).pipe(Effect.withSpan("KeyService.issue"))

    const get = (caller: CallerInfo, id: string) =>
      Effect.flatMap(repo.find(caller.readTenant, id), (key) => (key === undefined ? Effect.fail(notFound(id)) : Effect.succeed(key)))

    const list = (caller: CallerInfo, query: ApiKeysQuery) => repo.list(caller.readTenant, query)

    const revoke = (caller: CallerInfo, id: string, reason: string | null) =>
      Effect.gen(function* () {
        const outcome = yield* sql.withTransaction(
          Effect.gen(function* () {
            const before = yield* repo.lock(caller.readTenant, id)
            if (before === undefined) return undefined
            if (before.status === "revoked") return before
            const after = yield* repo.revoke(caller.readTenant, id, caller.keyId, reason)
            if (after === undefined) return undefined
            yield* event(caller, after, "api_key.revoked", `api key ${after.prefix} revoked`, { reason })
            return after
          })
        ).pipe(Effect.orDie)
        if (outcome === undefined) return yield* Effect.fail(notFound(id))
        yield* announce(id)
        return outcome
      }).pipe(Effect.withSpan("KeyService.revoke"))

    /** A new key like the old one; the old one works `graceSeconds` more. Only an active key not yet rotated. */
    const rotate = (caller: CallerInfo, id: string, body: RotateApiKeyBody) =>
      Effect.gen(function* () {
        const outcome = yield* sql.withTransaction(
          Effect.gen(function* () {
            const old = yield* repo.lock(caller.readTenant, id)
            if (old === undefined) return yield* Effect.fail(notFound(id))
            if (old.status !== "active") {
              return yield* Effect.fail(new InvalidState({ message: `api key ${id} is ${old.status}: only an active key can be rotated`, currentState: old.status }))
            }
            if (old.replacedBy !== null) {
              return yield* Effect.fail(new InvalidState({ message: `api key ${id} was already rotated to ${old.replacedBy}: rotate that one`, currentState: "rotated" }))
            }
            const grant = yield* checkGrant(
              caller,
              { tenant: old.tenantId, scopes: old.scopes as KeyRequest["scopes"], agentId: old.agentId ?? undefined, expiresAt: body.expiresAt, label: body.label ?? old.label ?? undefined },
              Date.now()
            )
            const key = yield* store(caller, grant, old.id)
            const previous = yield* repo.retire(old.id, key.id, body.graceSeconds)
            yield* event(caller, previous, "api_key.rotated", `api key ${previous.prefix} rotated to ${key.prefix}`, {
              replacedBy: key.id, graceSeconds: body.graceSeconds, expiresAt: previous.expiresAt
            })
            return { key, previous }
          })
        ).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))
        yield* announce(outcome.key.id, outcome.previous.id)
        return outcome
      }).pipe(Effect.withSpan("KeyService.rotate"))

    return { prepare, store, announce, issue, get, list, revoke, rotate }
  })
}) {}
