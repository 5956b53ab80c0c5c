/** The liquid-staking program's custom error codes (programs/liquid-staking/staking.h), and a failure named from logs. */
export const STAKING_ERRORS: Readonly<Record<number, string>> = {
  7100: "invalid instruction",
  7101: "not enough accounts",
  7102: "missing signature",
  7103: "account not writable",
  7104: "wrong pool address",
  7105: "pool already exists",
  7106: "not a pool of this program",
  7107: "bad LST mint",
  7108: "fee above 1000 bps",
  7109: "zero amount",
  7110: "output below the minimum (the exchange rate moved past the bound)",
  7111: "output rounds to zero",
  7112: "arithmetic overflow",
  7113: "wrong token program",
  7114: "wrong system program",
  7115: "unsupported rent parameters",
  7116: "insufficient funds",
  7117: "not the pool authority",
  7118: "pool is empty"
}

export const describeStakingFailure = (logs: ReadonlyArray<string>, programId: string | undefined): string | undefined => {
  if (programId === undefined) return undefined
  for (const line of logs) {
    const match = /^Program (\S+) failed: custom program error: 0x([0-9a-f]+)$/.exec(line)
    if (match === null || match[1] !== programId) continue
    const code = Number.parseInt(match[2]!, 16)
    return `liquid-staking program ${programId} refused: error ${code} ${STAKING_ERRORS[code] ?? "(unknown code)"}`
  }
  return undefined
}
