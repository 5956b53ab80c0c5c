/**
 * The CLI's exit codes follow the envelope: 0 when it says success (a transaction confirmed, running or waiting
 * at the approval gate), else one code per errorCode, so a script can tell a refusal from an outage.
 */
import type { Envelope } from "../../sdk/src/index.js"

export const EXIT = {
  ok: 0,
  VALIDATION_ERROR: 2,
  POLICY_VIOLATION: 3,
  PIPELINE_ERROR: 4,
  CONFIRMATION_FAILED: 5,
  /** Bad arguments (sysexits' EX_USAGE). */
  usage: 64,
  /** The service could not be reached (EX_UNAVAILABLE). */
  unreachable: 69
} as const

export const exitCodeOf = (envelope: Pick<Envelope<unknown>, "status" | "errorCode">): number =>
  envelope.status === "success" ? EXIT.ok : envelope.errorCode === null ? EXIT.PIPELINE_ERROR : EXIT[envelope.errorCode]
