/**
 * Whether an error (a SqlError, as a failure or a defect) is the named unique index refusing a row:
 * SQLSTATE 23505 on node-postgres' error, which names the index, somewhere down the error's causes.
 */
export const isUniqueViolation = (error: unknown, index: string): boolean => {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const found = current as { code?: unknown; constraint?: unknown; cause?: unknown }
    if (found.code === "23505" && found.constraint === index) return true
    current = found.cause
  }
  return false
}
