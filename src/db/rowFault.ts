/**
 * Whether a failed statement failed because of its rows (PostgreSQL SQLSTATE class 22 "data
 * exception" or 23 "integrity constraint violation", e.g. a NUL in text, a bad uuid), so trying
 * the same rows again can never succeed, as opposed to a failure of the database or the connection.
 */
import { Cause } from "effect"

const sqlState = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

export const isRowFault = (cause: Cause.Cause<unknown>): boolean => {
  const code = sqlState(Cause.squash(cause))
  return code !== undefined && (code.startsWith("22") || code.startsWith("23"))
}

/** The SQLSTATE of a failure, for a log line (never the failing values). */
export const sqlStateOf = (cause: Cause.Cause<unknown>): string => sqlState(Cause.squash(cause)) ?? "unknown"
