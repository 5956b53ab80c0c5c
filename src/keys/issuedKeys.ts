/**
 * This process's copy of the issued keys that may authenticate, so the gateway's look-up is a map read and
 * one constant-time compare, with no SQL on the request path. Kept current by NOTIFY (keyRepo.ts announces
 * every issue, rotation and revocation in its own statement): a change reaches every process in
 * milliseconds, and this process's own changes are applied at once (`refresh`).
 *
 * A lost LISTEN connection is replaced (db/notifications.ts), and every key is read again then, for the
 * changes announced in between. A LISTEN that hears nothing (a pooler in transaction mode) must not leave a
 * revoked key working either: the process NOTIFYs itself a heartbeat every second, and while its own
 * heartbeat has not come back for 3 s it reloads every key each second instead (and once more when the
 * heartbeat returns). A full reload every minute is the last safety net.
 * The listener runs as the supervised actor `api-key-listener`.
 *
 * The gateway answers its first request with the listener live: the service's start waits (at most 5 s)
 * until its own NOTIFY comes back, then reads every key once more, so a key issued elsewhere a moment
 * after this process started works here within a second, not at the next fallback reload. A database
 * whose LISTEN does not work still serves, on the fallback reloads, with a warning.
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Option, Schedule, Stream } from "effect"
import { randomUUID, timingSafeEqual } from "node:crypto"
import { superviseActor } from "../supervision/superviseActor.js"
import type { ApiKeyEntry, Scope } from "../gateway/apiKeys.js"
import type { IssuedKeyLookup } from "../gateway/keyRing.js"
import { issuedKeyId, keyDigest } from "./keyFormat.js"
import { ApiKeyRepo, type GatewayKeyRow, KEYS_CHANNEL } from "./keyRepo.js"
import { Notifications, Relistened } from "../db/notifications.js"

interface IssuedEntry {
  readonly entry: ApiKeyEntry
  /** Epoch ms; null: never expires. */
  readonly expiresAt: number | null
}

const HEARTBEAT_EVERY = "1 second"
const HEARTBEAT_STALE_MS = 3_000
const FULL_RELOAD_EVERY = "60 seconds"
const LISTEN_PROBE_EVERY = "10 millis"
const LISTEN_READY_WITHIN = "5 seconds"

const entryOf = (row: GatewayKeyRow): IssuedEntry => ({
  entry: {
    keyId: row.id,
    digest: Buffer.from(row.key_hash),
    tenant: row.tenant_id,
    scopes: new Set(row.scopes as ReadonlyArray<Scope>),
    agentId: row.agent_id,
    issued: true
  },
  expiresAt: row.expires_at === null ? null : row.expires_at.getTime()
})

export class IssuedKeys extends Effect.Service<IssuedKeys>()("IssuedKeys", {
  dependencies: [ApiKeyRepo.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* ApiKeyRepo
    const sql = yield* SqlClient.SqlClient
    const notifications = yield* Notifications
    let keys = new Map<string, IssuedEntry>()

    const apply = (id: string, row: GatewayKeyRow | undefined) => {
      if (row === undefined || row.revoked) keys.delete(id)
      else keys.set(id, entryOf(row))
    }
    /** Reads one key again (after its NOTIFY, or this process's own change). */
    const refresh = (id: string) => Effect.map(repo.gatewayKey(id), (row) => apply(id, row))
    const reloadAll = Effect.map(repo.activeKeys, (rows) => {
      keys = new Map(rows.map((row) => [row.id, entryOf(row)]))
    })

    const find = (presented: string, now: number): IssuedKeyLookup => {
      const id = issuedKeyId(presented)
      if (id === undefined) return { _tag: "NotIssued" }
      const known = keys.get(id)
      // A well-formed key we do not hold: never issued here, or revoked. Its id is public; nothing else is kept.
      if (known === undefined) return { _tag: "Refused", keyId: id, tenant: null, reason: "unknown" }
      if (!timingSafeEqual(known.entry.digest, keyDigest(presented))) {
        return { _tag: "Refused", keyId: id, tenant: known.entry.tenant, reason: "wrong_secret" }
      }
      if (known.expiresAt !== null && known.expiresAt <= now) {
        return { _tag: "Refused", keyId: id, tenant: known.entry.tenant, reason: "expired" }
      }
      return { _tag: "Found", entry: known.entry }
    }

    const isCurrent = (id: string, now: number) => {
      const known = keys.get(id)
      return known !== undefined && (known.expiresAt === null || known.expiresAt > now)
    }

    const origin = randomUUID()
    const heartbeat = `heartbeat:${origin}`
    const sendHeartbeat = sql`SELECT pg_notify(${KEYS_CHANNEL}, ${heartbeat})`.pipe(Effect.asVoid)
    let heardAt = 0
    const firstHeard = yield* Deferred.make<void>()
    yield* superviseActor(
      "api-key-listener",
      () =>
        notifications.listen(KEYS_CHANNEL).pipe(
          Stream.runForEach((payload) => {
            // Changes announced while the LISTEN connection was being replaced were not heard: read every key.
            if (payload === Relistened) return reloadAll
            if (payload === heartbeat) {
              heardAt = Date.now()
              return Deferred.succeed(firstHeard, undefined)
            }
            if (payload.startsWith("heartbeat:")) return Effect.void
            return refresh(payload)
          })
        ),
      { kind: "gateway" }
    )

    // Live before the first request: heartbeats every 10 ms until one comes back (a NOTIFY sent before the
    // LISTEN is in place is lost), then every key, read once changes are heard, so none falls between.
    const heard = yield* sendHeartbeat.pipe(
      Effect.zipRight(Deferred.await(firstHeard).pipe(Effect.timeoutOption(LISTEN_PROBE_EVERY))),
      Effect.repeat({ until: Option.isSome }),
      Effect.timeoutOption(LISTEN_READY_WITHIN),
      Effect.map(Option.isSome),
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("api key heartbeat failed at start", cause), false))
    )
    yield* reloadAll
    if (!heard) yield* Effect.logWarning("api key NOTIFY not heard at start: reloading keys every second until it is")
    let degraded = !heard

    // The heartbeat, and the fallback while it is not heard.
    const tick = Effect.gen(function* () {
      yield* sendHeartbeat
      const stale = Date.now() - heardAt > HEARTBEAT_STALE_MS
      if (stale && !degraded) yield* Effect.logWarning("api key NOTIFY not heard: reloading keys every second until it is")
      // Once more on recovery: a change made before LISTEN worked again was never announced to it.
      if (stale || degraded) yield* reloadAll
      degraded = stale
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("api key heartbeat failed", cause)))
    yield* tick.pipe(Effect.repeat(Schedule.spaced(HEARTBEAT_EVERY)), Effect.forkScoped)
    yield* reloadAll.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("api key reload failed", cause)),
      Effect.repeat(Schedule.spaced(FULL_RELOAD_EVERY)),
      Effect.delay(FULL_RELOAD_EVERY),
      Effect.forkScoped
    )

    return { find, isCurrent, refresh }
  })
}) {}
