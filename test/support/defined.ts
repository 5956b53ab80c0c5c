/**
 * A field a test needs that the record declares optional (a signature, a proof, a delta guard): the
 * value, or a thrown error naming it, so the test fails saying what was missing instead of reading on.
 */
export const defined = <T>(value: T | undefined | null, what: string): T => {
  if (value === undefined || value === null) throw new Error(`expected ${what} to be present`)
  return value
}
