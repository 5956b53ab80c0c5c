/**
 * Projected portfolio metrics after a transaction: computed by the risk component
 * (portfolioMetrics.ts) and judged by the policy's portfolio risk checks.
 */
export interface PortfolioMetrics {
  readonly drawdownLamports: bigint
  readonly dailyLossLamports: bigint
  /** Projected exposure in bps of portfolio value, for each token mint this transaction changes. */
  readonly tokenExposureBps: Readonly<Record<string, number>>
  /** Projected exposure in bps of portfolio value, for each protocol this transaction touches. */
  readonly protocolExposureBps: Readonly<Record<string, number>>
}

