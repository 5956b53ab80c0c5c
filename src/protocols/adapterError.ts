import { Data } from "effect"

/**
 * An adapter refused to build: bad or missing intent field, a chain fact that makes the
 * action impossible (unfunded destination below rent, wrong mint authority, not enough
 * tokens), or an unsupported operation. The pipeline maps it to failedAt `build`.
 */
export class AdapterInputError extends Data.TaggedError("AdapterInputError")<{
  readonly protocol: string
  readonly operation: string
  /** the intent field at fault, when there is one */
  readonly field?: string
  readonly message: string
}> {}

/** Which adapter and operation a refusal comes from. */
export interface FieldContext {
  readonly protocol: string
  readonly operation: string
}

/** Builds an AdapterInputError whose message names the field: "intent.lamports must be …". */
export const invalidField = (protocol: string, operation: string, field: string, problem: string): AdapterInputError =>
  new AdapterInputError({ protocol, operation, field, message: `intent.${field} ${problem}` })
