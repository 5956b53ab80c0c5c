/**
 * Capability manifests with state: issuing stores every nonce, so one manifest can be revoked on its
 * own (rotating AGENT_MANIFEST_SIGNING_SECRET revokes them all); verification accepts only a nonce we
 * issued to that agent and did not revoke; `requireForExecute` is execute's manifest gate (403s).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Either, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { CapabilityManifest, IssueManifestBody, ManifestVerification, RevokeManifestBody } from "../../schemas/agent.js"
import { NotFound, PolicyViolation, UpstreamUnavailable } from "../../schemas/errors.js"
import { AuditLog } from "../audit/auditLog.js"
import { AppConfig } from "../config.js"
import type { CallerInfo } from "../gateway/caller.js"
import type { StoredAgent } from "./agentRow.js"
import { checkManifest, MANIFEST_ISSUER, MANIFEST_VERSION, manifestCovers, signManifest } from "./manifests.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"


const refused = (reason: string): Either.Either<CapabilityManifest, string> => Either.left(reason)

const NonceRow = Schema.Struct({
  revoked_at: Schema.NullOr(Timestamp)
})
type NonceRow = typeof NonceRow.Type

/** A revoked manifest: its (first) revocation, and whether this revoke made it. */
const RevokedRow = Schema.Struct({ revoked_at: Timestamp, revoked_reason: Schema.NullOr(Schema.String), newly: Schema.Boolean })

export class ManifestStore extends Effect.Service<ManifestStore>()("ManifestStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog
    const config = yield* AppConfig
    const secret = Option.map(config.agents.manifestSigningSecret, Redacted.value)

    const issue = (caller: CallerInfo, stored: StoredAgent, body: IssueManifestBody) =>
      Effect.gen(function* () {
        if (Option.isNone(secret)) {
          return yield* Effect.fail(new UpstreamUnavailable({ message: "manifest signing is not configured: AGENT_MANIFEST_SIGNING_SECRET is unset" }))
        }
        const now = yield* Clock.currentTimeMillis
        const manifest = signManifest(
          {
            issuer: MANIFEST_ISSUER,
            version: MANIFEST_VERSION,
            agentId: stored.agent.id,
            allowedIntents: body.allowedIntents,
            allowedProtocols: body.allowedProtocols,
            issuedAt: new Date(now).toISOString(),
            expiresAt: new Date(now + body.ttlSeconds * 1000).toISOString(),
            nonce: randomBytes(16).toString("hex")
          },
          secret.value
        )
        // The manifest and its event commit together.
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`
              INSERT INTO agent_manifests (nonce, agent_id, tenant_id, allowed_intents, allowed_protocols, issued_at, expires_at)
              VALUES (${manifest.nonce}, ${stored.agent.id}, ${stored.tenantId}, ${JSON.stringify(manifest.allowedIntents)}::jsonb,
                ${JSON.stringify(manifest.allowedProtocols)}::jsonb, ${manifest.issuedAt}::timestamptz, ${manifest.expiresAt}::timestamptz)
            `
            yield* audit.record({
              tenantId: stored.tenantId, eventType: "agent.manifest.issued", message: `manifest issued to agent ${stored.agent.id}`,
              metadata: { nonce: manifest.nonce, allowedIntents: manifest.allowedIntents, allowedProtocols: manifest.allowedProtocols, expiresAt: manifest.expiresAt },
              agentId: stored.agent.id, entityType: "agent", category: "manifest", traceId: caller.traceId
            })
          })
        ).pipe(Effect.orDie)
        return manifest
      }).pipe(Effect.withSpan("ManifestStore.issue"))

    /** Left: the reason a manifest is not valid for this agent now. */
    const check = (stored: StoredAgent, input: unknown) =>
      Effect.gen(function* () {
        if (Option.isNone(secret)) return refused("manifest signing is not configured")
        const checked = checkManifest(input, { agentId: stored.agent.id, secret: secret.value, nowMillis: yield* Clock.currentTimeMillis })
        if (Either.isLeft(checked)) return checked
        const [row] = yield* sql`
          SELECT revoked_at FROM agent_manifests WHERE nonce = ${checked.right.nonce} AND agent_id = ${stored.agent.id}
        `.pipe(decodeRows("agent_manifests", NonceRow), Effect.orDie)
        if (row === undefined) return refused("manifest nonce was not issued to this agent")
        if (row.revoked_at !== null) return refused("manifest was revoked")
        return checked
      })

    const verify = (stored: StoredAgent, input: unknown) =>
      Effect.map(check(stored, input), (checked): ManifestVerification =>
        Either.isRight(checked) ? { valid: true, reason: "manifest is valid" } : { valid: false, reason: checked.left }
      )

    /** Execute's gate when AGENT_REQUIRE_MANIFEST=true: a valid manifest that covers the intent, else 403. */
    const requireForExecute = (stored: StoredAgent, input: unknown, type: string, protocol: string) =>
      Effect.gen(function* () {
        if (input === undefined) {
          return yield* Effect.fail(
            new PolicyViolation({ message: "capability manifest required: send it in the body field `manifest` or the x-agent-manifest header (base64 JSON)" })
          )
        }
        const checked = yield* check(stored, input)
        if (Either.isLeft(checked)) return yield* Effect.fail(new PolicyViolation({ message: `capability manifest refused: ${checked.left}` }))
        const covered = manifestCovers(checked.right, type, protocol)
        if (Either.isLeft(covered)) return yield* Effect.fail(new PolicyViolation({ message: covered.left }))
        return checked.right
      })

    /** Revokes one manifest by nonce (idempotent: an already revoked one keeps its first revocation). */
    const revoke = (caller: CallerInfo, stored: StoredAgent, body: RevokeManifestBody) =>
      Effect.gen(function* () {
        const nonce = body.nonce ?? body.manifest?.nonce ?? ""
        const reason = body.reason ?? "revoked by operator"
        // The revocation and its event commit together.
        const [row] = yield* sql.withTransaction(
          Effect.tap(
            sql`
              WITH target AS (SELECT nonce, revoked_at FROM agent_manifests WHERE nonce = ${nonce} AND agent_id = ${stored.agent.id} FOR UPDATE)
              UPDATE agent_manifests m SET revoked_at = COALESCE(m.revoked_at, now()), revoked_reason = COALESCE(m.revoked_reason, ${reason})
              FROM target t WHERE m.nonce = t.nonce
              RETURNING m.revoked_at, m.revoked_reason, t.revoked_at IS NULL AS newly
            `.pipe(decodeRows("agent_manifests", RevokedRow)),
            ([revoked]) =>
              revoked?.newly === true
                ? audit.record({
                    tenantId: stored.tenantId, eventType: "agent.manifest.revoked", message: `manifest ${nonce} of agent ${stored.agent.id} revoked`,
                    metadata: { nonce, reason }, agentId: stored.agent.id, entityType: "agent", category: "manifest", traceId: caller.traceId
                  })
                : Effect.void
          )
        ).pipe(Effect.orDie)
        if (row === undefined) return yield* Effect.fail(new NotFound({ resource: "manifest", id: nonce }))
        return { agentId: stored.agent.id, nonce, revoked: true, revokedAt: row.revoked_at.toISOString(), reason: row.revoked_reason ?? reason }
      }).pipe(Effect.withSpan("ManifestStore.revoke"))

    return { issue, verify, requireForExecute, revoke }
  })
}) {}
