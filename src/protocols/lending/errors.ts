/** The lending-market program's custom error codes (programs/lending-market/lending.h), and a failure named from logs. */
export const LENDING_ERRORS: Readonly<Record<number, string>> = {
  7200: "invalid instruction",
  7201: "not enough accounts",
  7202: "missing signature",
  7203: "account not writable",
  7204: "wrong reserve address",
  7205: "reserve already exists",
  7206: "not a reserve of this program",
  7207: "bad mint",
  7208: "bad vault",
  7209: "bad oracle account or price",
  7210: "parameter out of range",
  7211: "zero amount",
  7212: "arithmetic overflow",
  7213: "wrong token program",
  7214: "wrong system program",
  7215: "unsupported rent parameters",
  7216: "insufficient funds",
  7217: "wrong obligation address",
  7218: "not an obligation of this owner",
  7219: "obligation has no free position slot",
  7220: "missing reserve or oracle account of a position",
  7221: "unhealthy: the borrowed value would exceed the collateral value x collateral factor",
  7222: "insufficient liquidity in the reserve",
  7223: "flash loan not repaid in this transaction",
  7224: "a flash loan of this reserve is in flight",
  7225: "no flash loan to repay",
  7226: "repayment below the loan plus its fee",
  7227: "wrong instructions sysvar",
  7228: "withdrawal refused: the borrowed value would exceed the remaining collateral value x collateral factor",
  7229: "nothing supplied to this reserve to withdraw",
  7230: "nothing borrowed from this reserve to repay",
  7231: "an oracle price is older than the lending program accepts (120 s before the chain's clock)"
}

export const describeLendingFailure = (logs: ReadonlyArray<string>, programId: string | undefined): string | undefined => {
  if (programId === undefined) return undefined
  for (const line of logs) {
    const match = /^Program (\S+) failed: custom program error: 0x([0-9a-f]+)$/.exec(line)
    if (match === null || match[1] !== programId) continue
    const code = Number.parseInt(match[2]!, 16)
    return `lending-market program ${programId} refused: error ${code} ${LENDING_ERRORS[code] ?? "(unknown code)"}`
  }
  return undefined
}
