/**
 * Holds a wallet's policy decisions: its decision lock (the `policy_wallet_locks` row the engine takes first,
 * src/policy/policyStore.ts) in an open SQL transaction, so its transactions stop after build and simulation,
 * before policy, signing and sending. Two transfers simulated against the same balance, released together,
 * both land and the later one fails on chain: a confirm failure on the real ledger without timing luck.
 * The wallet needs a policy (an unconstrained wallet takes the decision's fast path without the lock).
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect } from "effect"
import type { RunningService } from "./service.js"
import { sleep } from "./wait.js"

export const holdDecisions = async (service: RunningService, walletId: string) => {
  const locked = Effect.runSync(Deferred.make<void>())
  const release = Effect.runSync(Deferred.make<void>())
  const holding = service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO policy_wallet_locks (wallet_id) VALUES (${walletId}) ON CONFLICT (wallet_id) DO UPDATE SET last_decision_at = now()`
      yield* Deferred.succeed(locked, undefined)
      yield* Deferred.await(release)
    }))
  ))
  await Effect.runPromise(Deferred.await(locked))
  const waiting = () =>
    service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).then((rows) => rows[0]?.n ?? 0)
  return {
    /** Resolves once `count` decisions wait on the lock (each transaction then was built and simulated). */
    waitForWaiting: async (count: number) => {
      for (let i = 0; i < 600 && (await waiting()) < count; i++) await sleep(50)
      if ((await waiting()) < count) throw new Error(`fewer than ${count} decisions waited for wallet ${walletId}`)
    },
    release: async () => {
      Effect.runSync(Deferred.succeed(release, undefined))
      await holding
    }
  }
}
