/**
 * Readable failures of the escrow program: the runtime reports `custom program error: 0x1772`; the
 * user wants "only the creator or the arbiter can release this escrow". Used by the pipeline's
 * simulation error description.
 */
import { ESCROW_ERRORS, isEscrowErrorCode } from "./errors.js"

const CUSTOM_ERROR = /^Program (\S+) failed: custom program error: 0x([0-9a-fA-F]+)$/

/** The escrow program's message for a failed simulation, or undefined when the escrow program did not fail. */
export const describeEscrowFailure = (logs: ReadonlyArray<string>, escrowProgramId: string): string | undefined => {
  for (const line of logs) {
    const match = CUSTOM_ERROR.exec(line)
    if (match === null || match[1] !== escrowProgramId) continue
    const code = Number.parseInt(match[2], 16)
    if (!isEscrowErrorCode(code)) return undefined
    const error = ESCROW_ERRORS[code]
    return `${error.message} (escrow error ${code} ${error.name})`
  }
  return undefined
}
