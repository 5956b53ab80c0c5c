/** Turns a failed simulation into a message a user can act on. */
import { describeAmmFailure } from "../protocols/amm/simulationError.js"
import { describeEscrowFailure } from "../protocols/escrow/simulationError.js"
import { describeStakingFailure } from "../protocols/staking/errors.js"
import { describeLendingFailure } from "../protocols/lending/errors.js"

const SYSTEM_PROGRAM = "11111111111111111111111111111111"

/** A readable simulation error: the runtime's error plus the last program log line that explains it. */
export const describeSimulationError = (
  err: unknown, logs: ReadonlyArray<string>, escrowProgramId: string, ammProgramIds: ReadonlyArray<string> = [], stakingProgramId?: string,
  lendingProgramId?: string
) => {
  const escrowFailure = describeEscrowFailure(logs, escrowProgramId)
  if (escrowFailure !== undefined) return escrowFailure
  const ammFailure = describeAmmFailure(logs, ammProgramIds)
  if (ammFailure !== undefined) return ammFailure
  const stakingFailure = describeStakingFailure(logs, stakingProgramId)
  if (stakingFailure !== undefined) return stakingFailure
  const lendingFailure = describeLendingFailure(logs, lendingProgramId)
  if (lendingFailure !== undefined) return lendingFailure
  const text = typeof err === "string" ? err : JSON.stringify(err)
  const hint = [...logs].reverse().find((line) => /insufficient|error|failed/i.test(line))
  if (/InsufficientFundsForRent/.test(text)) return `insufficient funds for rent (${text})`
  if (hint !== undefined && /insufficient lamports/i.test(hint)) return `insufficient funds: ${hint}`
  // The system program's error 1 is ResultWithNegativeLamports: the payer cannot cover the transfer.
  if (logs.some((line) => line === `Program ${SYSTEM_PROGRAM} failed: custom program error: 0x1`)) return `insufficient funds: the wallet cannot cover the transfer (${text})`
  return hint === undefined ? text : `${text}: ${hint}`
}
