/**
 * projectPortfolioMetrics: the projected drawdown, daily loss and exposures after one transaction, from
 * a wallet's confirmed history (definitions in src/risk/portfolioMetrics.ts and docs/decisions/policy.md).
 */
import { describe, expect, it } from "vitest"
import { type PortfolioHistory, projectPortfolioMetrics } from "../../src/risk/portfolioMetrics.js"

const SOL = 1_000_000_000n

const history = (over: Partial<PortfolioHistory> = {}): PortfolioHistory => ({
  peakLamports: undefined,
  dayStartLamports: undefined,
  latestLamports: undefined,
  netIntoProtocol: new Map(),
  netIntoMint: new Map(),
  ...over
})

describe("projectPortfolioMetrics", () => {
  it("a wallet without history: drawdown and daily loss are the amount; a payment opens no exposure", () => {
    const metrics = projectPortfolioMetrics(history(), { protocol: "system-program", amountLamports: SOL / 2n, preBalanceLamports: 2n * SOL })
    expect(metrics).toEqual({ drawdownLamports: SOL / 2n, dailyLossLamports: SOL / 2n, tokenExposureBps: {}, protocolExposureBps: {} })
  })

  it("drawdown runs from the highest balance ever confirmed; daily loss from the first balance of the UTC day", () => {
    const metrics = projectPortfolioMetrics(history({ peakLamports: 5n * SOL, dayStartLamports: 3n * SOL, latestLamports: 2n * SOL }), {
      protocol: "system-program", amountLamports: SOL, preBalanceLamports: 2n * SOL
    })
    expect(metrics.drawdownLamports).toBe(4n * SOL)
    expect(metrics.dailyLossLamports).toBe(2n * SOL)
  })

  it("uses the last confirmed balance when the pipeline read none, and never goes below zero", () => {
    const gain = projectPortfolioMetrics(history({ peakLamports: SOL, dayStartLamports: SOL, latestLamports: 3n * SOL }), { protocol: "system-program" })
    expect(gain.drawdownLamports).toBe(0n)
    expect(gain.dailyLossLamports).toBe(0n)
    const overdraw = projectPortfolioMetrics(history(), { protocol: "system-program", amountLamports: 3n * SOL, preBalanceLamports: SOL })
    expect(overdraw.drawdownLamports).toBe(SOL)
  })

  it("a position protocol's exposure counts what is already in it plus this amount, over balance plus positions", () => {
    // 1 SOL already in escrow, 1 SOL more now: 2 of (1 projected + 2 invested) = 6666 bps.
    const metrics = projectPortfolioMetrics(history({ netIntoProtocol: new Map([["escrow", SOL]]), netIntoMint: new Map([["MintA", SOL]]) }), {
      protocol: "escrow", tokenMint: "MintA", amountLamports: SOL, preBalanceLamports: 2n * SOL
    })
    expect(metrics.protocolExposureBps).toEqual({ escrow: 6666 })
    expect(metrics.tokenExposureBps).toEqual({ MintA: 6666 })
  })

  it("a protocol the wallet has left (net <= 0) adds no exposure; an empty portfolio is all-in", () => {
    const left = projectPortfolioMetrics(history({ netIntoProtocol: new Map([["escrow", -SOL]]) }), {
      protocol: "escrow", amountLamports: SOL / 10n, preBalanceLamports: SOL
    })
    expect(left.protocolExposureBps).toEqual({ escrow: 1000 })
    const allIn = projectPortfolioMetrics(history(), { protocol: "escrow", amountLamports: SOL, preBalanceLamports: SOL })
    expect(allIn.protocolExposureBps).toEqual({ escrow: 10_000 })
  })
})
