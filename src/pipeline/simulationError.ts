/** Turns a failed simulation into a message a user can act on. */
import type { ProgramIds } from "../protocols/protocolAdapter.js"
import { describeProtocolFailure } from "../protocols/registry.js"

const SYSTEM_PROGRAM = "11111111111111111111111111111111"

/**
 * A readable simulation error: a protocol program's refusal as its adapter names it, else the runtime's
 * error plus the last program log line that explains it.
 */
export const describeSimulationError = (err: unknown, logs: ReadonlyArray<string>, programIds: ProgramIds) => {
  const protocolFailure = describeProtocolFailure(logs, programIds)
  if (protocolFailure !== undefined) return protocolFailure
  const text = typeof err === "string" ? err : JSON.stringify(err)
  const hint = [...logs].reverse().find((line) => /insufficient|error|failed/i.test(line))
  if (/InsufficientFundsForRent/.test(text)) return `insufficient funds for rent (${text})`
  if (hint !== undefined && /insufficient lamports/i.test(hint)) return `insufficient funds: ${hint}`
  // The system program's error 1 is ResultWithNegativeLamports: the payer cannot cover the transfer.
  if (logs.some((line) => line === `Program ${SYSTEM_PROGRAM} failed: custom program error: 0x1`)) return `insufficient funds: the wallet cannot cover the transfer (${text})`
  return hint === undefined ? text : `${text}: ${hint}`
}
