/**
 * Uses and failed uses of API keys, gathered in memory on the request path (a map write) and written every
 * 2 s (and at shutdown) by the supervised actor `api-key-usage`:
 * - an issued key's last use: ONE statement for all keys used since the last write (`api_keys.last_used_at`);
 * - `api_key.used` in the audit log: a key's first use in this process, then at most one an hour, with the
 *   number of uses since the previous one;
 * - `api_key.use_failed`: one event per key (or unknown key), reason and source address in each interval,
 *   with the count. A key that is not ours is never recorded in any form, only that one failed.
 * At most 1,000 distinct failures are kept per interval (a flood of guesses cannot grow memory); beyond it
 * they are counted in one `overflow` event.
 */
import { Effect, Schedule } from "effect"
import { superviseActor } from "../supervision/superviseActor.js"
import { AuditLog } from "../audit/auditLog.js"
import type { ApiKeyEntry } from "../gateway/apiKeys.js"
import type { KeyFailure } from "../gateway/keyRing.js"
import { prefixOf } from "./keyFormat.js"
import { ApiKeyRepo } from "./keyRepo.js"

const FLUSH_EVERY = "2 seconds"
const USED_EVENT_EVERY_MS = 3_600_000
const MAX_FAILURES = 1_000

interface Use {
  readonly entry: ApiKeyEntry
  at: number
  uses: number
}

interface FailureCount {
  readonly failure: KeyFailure
  count: number
}

/** Audit events of a `*` key are the deployment's: only a key reading every tenant sees them. */
const DEPLOYMENT_TENANT = "*"

export class KeyUsage extends Effect.Service<KeyUsage>()("KeyUsage", {
  dependencies: [ApiKeyRepo.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* ApiKeyRepo
    const audit = yield* AuditLog
    let uses = new Map<string, Use>()
    let failures = new Map<string, FailureCount>()
    let overflow = 0
    /** When each key's last `api_key.used` event was written by this process, and the uses it has not reported. */
    const reported = new Map<string, { at: number; unreported: number }>()

    const recordUse = (entry: ApiKeyEntry) => {
      const use = uses.get(entry.keyId)
      if (use === undefined) uses.set(entry.keyId, { entry, at: Date.now(), uses: 1 })
      else {
        use.at = Date.now()
        use.uses += 1
      }
    }

    const recordFailure = (failure: KeyFailure) => {
      const key = `${failure.keyId ?? ""}|${failure.reason}|${failure.sourceAddress ?? ""}`
      const known = failures.get(key)
      if (known !== undefined) known.count += 1
      else if (failures.size < MAX_FAILURES) failures.set(key, { failure, count: 1 })
      else overflow += 1
    }

    const usedEvents = (batch: ReadonlyArray<Use>, now: number) =>
      Effect.forEach(batch, (use) => {
        const previous = reported.get(use.entry.keyId)
        const unreported = (previous?.unreported ?? 0) + use.uses
        if (previous !== undefined && now - previous.at < USED_EVENT_EVERY_MS) {
          previous.unreported = unreported
          return Effect.void
        }
        reported.set(use.entry.keyId, { at: now, unreported: 0 })
        return audit.recordSoon({
          tenantId: use.entry.tenant,
          eventType: "api_key.used",
          message: `api key ${prefixOf(use.entry.keyId)} used`,
          metadata: { keyId: use.entry.keyId, prefix: prefixOf(use.entry.keyId), uses: unreported, lastUsedAt: new Date(use.at).toISOString() },
          agentId: use.entry.agentId,
          entityType: "api_key",
          category: "access"
        })
      }, { discard: true })

    const failedEvents = (batch: ReadonlyArray<FailureCount>, dropped: number) =>
      Effect.gen(function* () {
        yield* Effect.forEach(batch, ({ failure, count }) =>
          audit.recordSoon({
            tenantId: failure.tenant ?? DEPLOYMENT_TENANT,
            eventType: "api_key.use_failed",
            message: failure.keyId === null
              ? `an unknown API key was refused ${count} time(s) (${failure.reason})`
              : `api key ${prefixOf(failure.keyId)} refused ${count} time(s): ${failure.reason}`,
            metadata: {
              keyId: failure.keyId,
              prefix: failure.keyId === null ? null : prefixOf(failure.keyId),
              reason: failure.reason,
              count,
              sourceAddress: failure.sourceAddress ?? null
            },
            entityType: "api_key",
            category: "access"
          }), { discard: true })
        if (dropped > 0) {
          yield* audit.recordSoon({
            tenantId: DEPLOYMENT_TENANT,
            eventType: "api_key.use_failed",
            message: `${dropped} more refused API key uses (too many distinct failures to list)`,
            metadata: { reason: "overflow", count: dropped },
            entityType: "api_key",
            category: "access"
          })
        }
      })

    /** Writes what was gathered since the last flush; a failed write of last uses keeps them for the next. */
    const flush = Effect.gen(function* () {
      const batch = [...uses.values()]
      const failed = [...failures.values()]
      const dropped = overflow
      uses = new Map()
      failures = new Map()
      overflow = 0
      // Bootstrap keys have no row: only issued keys have a last use to write.
      const issued = batch.filter((use) => use.entry.issued)
      if (issued.length > 0) {
        yield* repo.touch(issued.map((use) => ({ id: use.entry.keyId, at: new Date(use.at).toISOString() }))).pipe(
          Effect.catchAll((error) =>
            Effect.zipRight(
              Effect.logWarning("api key last uses not written; kept for the next write", String(error)),
              Effect.sync(() => {
                for (const use of issued) if (!uses.has(use.entry.keyId)) uses.set(use.entry.keyId, use)
              })
            )
          )
        )
      }
      yield* usedEvents(batch, Date.now())
      yield* failedEvents(failed, dropped)
    })

    yield* superviseActor("api-key-usage", () => flush.pipe(Effect.repeat(Schedule.spaced(FLUSH_EVERY)), Effect.asVoid), { kind: "gateway" })
    // What the last interval gathered is written when the service stops.
    yield* Effect.addFinalizer(() => Effect.ignore(flush))

    return { recordUse, recordFailure, flush }
  })
}) {}
