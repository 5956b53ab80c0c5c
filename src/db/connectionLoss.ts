/**
 * Whether a statement failed because its connection was lost, not because of the statement: PostgreSQL
 * ended it (a restart, a failover, pg_terminate_backend: SQLSTATE 57P01-57P03), the connection broke
 * (class 08, a reset socket, node-postgres' "Connection terminated"), or none could be made in time.
 * Such a statement is worth trying again on a new connection; a read always may be.
 */
import { Cause, Chunk, Effect, Schedule } from "effect"

const LOST_CODES = /^(08...|57P0[1-3])$/
const LOST_SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"])
const LOST_MESSAGES = /Connection terminated|connection error and is not queryable|Connection timed out|timeout exceeded when trying to connect|^timeout expired$/i
// @effect/sql-pg's (and database.ts's) errors of a connection it could not get or lost, whatever their cause.
const LOST_SQL_ERRORS = new Set([
  "Connection error",
  "Failed to acquire connection",
  "Failed to acquire connection for transaction",
  "PgClient: Failed to connect",
  "PgClient: Connection timed out"
])

const isLost = (error: unknown): boolean => {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { code, message, _tag } = current as { code?: unknown; message?: unknown; _tag?: unknown }
    if (_tag === "SqlError" && typeof message === "string" && LOST_SQL_ERRORS.has(message)) return true
    if (typeof code === "string" && (LOST_CODES.test(code) || LOST_SOCKET_CODES.has(code))) return true
    // Messages only of untagged errors (node-postgres', node's): a tagged error of ours names its own cause.
    if (typeof message === "string" && !("_tag" in current) && LOST_MESSAGES.test(message)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** A failure made only of lost connections, as a failure or a defect (nothing else, not an interruption). */
export const isConnectionLoss = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.isInterrupted(cause)) return false
  const errors = Chunk.appendAll(Cause.failures(cause) as Chunk.Chunk<unknown>, Cause.defects(cause))
  return Chunk.isNonEmpty(errors) && Chunk.every(errors, isLost)
}

/**
 * Backing off from 50 ms, each wait at most 250 ms, for up to about 5 s: longer than a burst of cuts lasts (a
 * flapping failover; test/gateway/databaseLoss's ten cuts took 3.5-4.1 s on a loaded machine, where every new
 * connection took long enough to meet the next cut). With 2 s and waits doubling to 800 ms a poll there answered
 * 503 in one CI run; with 3 s, in half the runs under load.
 */
const AGAIN = Schedule.exponential("50 millis").pipe(Schedule.union(Schedule.spaced("250 millis")), Schedule.upTo("5 seconds"))

/**
 * `effect` run again on a new connection while it fails as a lost connection, for up to about 5 s: for reads,
 * and for writes made safe to repeat.
 */
export const againOnConnectionLoss = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  effect.pipe(Effect.sandbox, Effect.retry({ schedule: AGAIN, while: isConnectionLoss }), Effect.unsandbox)
