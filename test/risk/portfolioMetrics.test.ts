/**
 * projectPortfolioMetrics: the projected drawdown, daily loss and exposures after one transaction, from the
 * wallet's portfolio value now and its value history (definitions in src/risk/portfolioMetrics.ts and
 * docs/decisions/portfolio.md).
 */
import { describe, expect, it } from "vitest"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { projectPortfolioMetrics } from "../../src/risk/portfolioMetrics.js"
import type { PortfolioValue } from "../../src/risk/portfolioValue.js"
import type { PortfolioBaseline } from "../../src/risk/portfolioValueRepo.js"

const SOL = 1_000_000_000n

const baseline = (over: Partial<PortfolioBaseline> = {}): PortfolioBaseline => ({ peakLamports: undefined, dayStartLamports: undefined, ...over })
const value = (totalLamports: bigint, over: Partial<PortfolioValue> = {}): PortfolioValue => ({
  totalLamports, byProtocol: new Map(), byMint: new Map(), holdings: new Map(), unpriced: [], ...over
})

describe("projectPortfolioMetrics", () => {
  it("a wallet never valued before: drawdown and daily loss are the amount; a payment opens no exposure", () => {
    const metrics = projectPortfolioMetrics(baseline(), value(2n * SOL), { protocol: "system-program", amountLamports: SOL / 2n })
    expect(metrics).toEqual({ drawdownLamports: SOL / 2n, dailyLossLamports: SOL / 2n, tokenExposureBps: {}, protocolExposureBps: {} })
  })

  it("drawdown runs from the highest value observed; daily loss from the first value of the UTC day", () => {
    const metrics = projectPortfolioMetrics(baseline({ peakLamports: 5n * SOL, dayStartLamports: 3n * SOL }), value(2n * SOL), {
      protocol: "system-program", amountLamports: SOL
    })
    expect(metrics.drawdownLamports).toBe(4n * SOL)
    expect(metrics.dailyLossLamports).toBe(2n * SOL)
  })

  it("a price fall shows as a loss with no spend at all; a gain never goes below zero", () => {
    // valued 3 SOL at the day's start (a token at its old price), 2 SOL now: a loss of 1 for a zero-lamport intent
    const fall = projectPortfolioMetrics(baseline({ peakLamports: 4n * SOL, dayStartLamports: 3n * SOL }), value(2n * SOL), { protocol: "system-program" })
    expect(fall.dailyLossLamports).toBe(SOL)
    expect(fall.drawdownLamports).toBe(2n * SOL)
    const gain = projectPortfolioMetrics(baseline({ peakLamports: SOL, dayStartLamports: SOL }), value(3n * SOL), { protocol: "system-program" })
    expect(gain.drawdownLamports).toBe(0n)
    expect(gain.dailyLossLamports).toBe(0n)
  })

  it("lamports put into a valued position (stake, lending, escrow) are not a loss; a spend elsewhere is", () => {
    const stake = projectPortfolioMetrics(baseline({ peakLamports: 2n * SOL, dayStartLamports: 2n * SOL }), value(2n * SOL), { protocol: "liquid-staking", amountLamports: SOL })
    expect(stake.dailyLossLamports).toBe(0n)
    expect(stake.drawdownLamports).toBe(0n)
    const nft = projectPortfolioMetrics(baseline({ peakLamports: 2n * SOL, dayStartLamports: 2n * SOL }), value(2n * SOL), { protocol: "nft-program", amountLamports: SOL })
    expect(nft.dailyLossLamports).toBe(SOL)
  })

  it("exposure: what the wallet holds in the protocol (or of the mint) plus this amount, over the value now", () => {
    // 1 SOL already staked of 3: 1 SOL more = 2 of 3 = 6666 bps
    const metrics = projectPortfolioMetrics(baseline(), value(3n * SOL, { byProtocol: new Map([["liquid-staking", SOL]]), byMint: new Map([["LstMint", SOL]]) }), {
      protocol: "liquid-staking", outputMint: "LstMint", amountLamports: SOL
    })
    expect(metrics.protocolExposureBps).toEqual({ "liquid-staking": 6666 })
    expect(metrics.tokenExposureBps).toEqual({ LstMint: 6666 })
  })

  it("a protocol the wallet holds nothing in counts only this amount; a portfolio worth nothing is all-in", () => {
    const first = projectPortfolioMetrics(baseline(), value(SOL), { protocol: "escrow", amountLamports: SOL / 10n })
    expect(first.protocolExposureBps).toEqual({ escrow: 1000 })
    const underwater = projectPortfolioMetrics(baseline(), value(-SOL), { protocol: "escrow", amountLamports: 1n })
    expect(underwater.protocolExposureBps).toEqual({ escrow: 10_000 })
  })
})

describe("projectPortfolioMetrics on swaps", () => {
  it("a swap into a priced token moves value (no loss until the next valuation); into an unpriced one it is a spend", () => {
    const usdc = mintBySymbol("USDC").address.toBase58()
    const history = baseline({ peakLamports: 2n * SOL, dayStartLamports: 2n * SOL })
    expect(projectPortfolioMetrics(history, value(2n * SOL), { protocol: "amm-one", outputMint: usdc, amountLamports: SOL }).dailyLossLamports).toBe(0n)
    expect(projectPortfolioMetrics(history, value(2n * SOL), { protocol: "amm-one", outputMint: "JunkMint", amountLamports: SOL }).dailyLossLamports).toBe(SOL)
  })
})

describe("projectPortfolioMetrics on token payments", () => {
  it("a transfer_spl takes the value of the tokens it sends, at the holding's value (capped at what is held)", () => {
    const history = baseline({ peakLamports: 3n * SOL, dayStartLamports: 3n * SOL })
    const holding = value(3n * SOL, { holdings: new Map([["UsdcMint", { amount: 200_000_000n, lamports: 2n * SOL }]]) })
    // half the USDC: 1 SOL of value leaves
    expect(projectPortfolioMetrics(history, holding, { protocol: "spl-token", tokenOutflow: { mint: "UsdcMint", amount: 100_000_000n } }).dailyLossLamports).toBe(SOL)
    expect(projectPortfolioMetrics(history, holding, { protocol: "spl-token", tokenOutflow: { mint: "UsdcMint", amount: 10n ** 12n } }).dailyLossLamports).toBe(2n * SOL)
    // a mint it holds none of (or without a price) sends no value it is known to have
    expect(projectPortfolioMetrics(history, holding, { protocol: "spl-token", tokenOutflow: { mint: "Other", amount: 5n } }).dailyLossLamports).toBe(0n)
  })
})
