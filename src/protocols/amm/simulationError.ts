/** A failed AMM instruction, read from the program logs: its custom error named (programs/amm/README.md). */
import { AMM_ERRORS } from "./errors.js"

export const describeAmmFailure = (logs: ReadonlyArray<string>, ammProgramIds: ReadonlyArray<string>): string | undefined => {
  for (const line of logs) {
    const match = /^Program (\S+) failed: custom program error: 0x([0-9a-f]+)$/.exec(line)
    if (match === null || !ammProgramIds.includes(match[1]!)) continue
    const code = Number.parseInt(match[2]!, 16)
    return `AMM program ${match[1]} refused the swap: error ${code} ${AMM_ERRORS[code] ?? "(unknown code)"}`
  }
  return undefined
}
