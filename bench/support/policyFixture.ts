/** The benchmark wallet's policies: three of ten rules each, mixed types, as the store reads them (JSON). */
export const DEST = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
export const BLOCKED = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
export const SYSTEM_PROGRAM = "11111111111111111111111111111111"
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
export const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

export const tenRules = (variant: number): Array<unknown> => [
  { type: "spending_limit", maxLamportsPerTx: 5_000_000_000 + variant, maxLamportsPerDay: 50_000_000_000, requireApprovalAboveLamports: 4_000_000_000 },
  { type: "address_allowlist", addresses: [DEST, BLOCKED] },
  { type: "address_blocklist", addresses: [BLOCKED] },
  { type: "program_allowlist", programIds: [SYSTEM_PROGRAM, TOKEN_PROGRAM] },
  { type: "token_allowlist", mints: [USDC] },
  { type: "protocol_allowlist", protocols: ["system-program", "spl-token", "dex-aggregator"] },
  { type: "rate_limit", maxTx: 1_000, windowSeconds: 60 * (variant + 1) },
  { type: "time_window", startHourUtc: 0, endHourUtc: 23 },
  { type: "max_slippage", maxBps: 300 },
  { type: "portfolio_risk", maxDrawdownLamports: 10_000_000_000, maxExposureBpsPerToken: 5_000 }
]
