/**
 * valuePortfolio: a wallet's value in lamports from its SOL, token holdings and indexed positions at oracle
 * prices (docs/decisions/portfolio.md), and where it refuses to guess.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { describe, expect, it } from "vitest"
import { type PriceQuote, type StaleQuote, tokenLamports, type ValuationInputs, valuePortfolio } from "../../src/risk/portfolioValue.js"

const SOL = 1_000_000_000n
const SOL_MINT = NATIVE_MINT.toBase58()
const USDC = "UsdcMint"
const LST = "LstMint"
// SOL at 150 USD, USDC at 1 USD (Pyth exponent -8)
const prices = new Map([
  [SOL_MINT, { price: 15_000_000_000n, exponent: -8 }],
  [USDC, { price: 100_000_000n, exponent: -8 }]
])

const inputs = (over: Partial<ValuationInputs> = {}): ValuationInputs => ({
  solLamports: 2n * SOL, tokens: [], positions: [], escrows: [], prices, decimals: new Map([[USDC, 6]]), pool: null, ...over
})
const valued = (over: Partial<ValuationInputs> = {}) => {
  const result = valuePortfolio(inputs(over))
  if (!result.ok) throw new Error(result.reason)
  return result.value
}

describe("valuePortfolio", () => {
  it("a token is worth amount x tokenPrice / solPrice in lamports", () => {
    // 300 USDC at 1 USD, SOL at 150 USD: 2 SOL
    expect(tokenLamports(300_000_000n, 6, { price: 100_000_000n, exponent: -8 }, { price: 15_000_000_000n, exponent: -8 })).toBe(2n * SOL)
    const value = valued({ tokens: [{ mint: USDC, amount: 300_000_000n, decimals: 6 }] })
    expect(value.totalLamports).toBe(4n * SOL)
    expect(value.byMint.get(USDC)).toBe(2n * SOL)
  })

  it("a stake position at the pool's rate, its LST holding not counted twice", () => {
    const value = valued({
      tokens: [{ mint: LST, amount: SOL, decimals: 9 }],
      positions: [{ protocol: "liquid-staking", positionType: "stake", token: LST, amount: SOL, valueLamports: SOL }],
      pool: { lstMint: LST, totalLamports: 11n * SOL, lstSupply: 10n * SOL }
    })
    expect(value.totalLamports).toBe(2n * SOL + 1_100_000_000n)
    expect(value.byProtocol.get("liquid-staking")).toBe(1_100_000_000n)
  })

  it("a supply adds its oracle value, a borrow subtracts it, wrapped SOL counts as lamports", () => {
    const value = valued({
      positions: [
        { protocol: "lending-market", positionType: "supply", token: SOL_MINT, amount: SOL, valueLamports: 0n },
        { protocol: "lending-market", positionType: "borrow", token: USDC, amount: 75_000_000n, valueLamports: 0n }
      ]
    })
    // 2 SOL + 1 SOL supplied - 75 USDC (0.5 SOL) owed
    expect(value.totalLamports).toBe(2_500_000_000n)
    expect(value.byProtocol.get("lending-market")).toBe(SOL)
  })

  it("escrows still locked count at their lamports; other position types at their indexed value", () => {
    const value = valued({
      escrows: [{ protocol: "escrow", lockedLamports: SOL / 2n }],
      positions: [{ protocol: "nft-program", positionType: "nft", token: "NftMint", amount: 1n, valueLamports: 7n }]
    })
    expect(value.totalLamports).toBe(2n * SOL + SOL / 2n + 7n)
    expect(value.byProtocol.get("escrow")).toBe(SOL / 2n)
  })

  it("a held token with no feed counts 0 and is listed; a position that cannot be valued fails closed", () => {
    const junk = valued({ tokens: [{ mint: "JunkMint", amount: 10n ** 12n, decimals: 6 }] })
    expect(junk.totalLamports).toBe(2n * SOL)
    expect(junk.unpriced).toEqual(["JunkMint"])
    const noFeed = valuePortfolio(inputs({ positions: [{ protocol: "lending-market", positionType: "borrow", token: "JunkMint", amount: 1n, valueLamports: 0n }] }))
    expect(noFeed).toEqual({ ok: false, reason: "no oracle feed for lending-market borrow position of JunkMint" })
    const noPrice = valuePortfolio(inputs({ tokens: [{ mint: USDC, amount: 1n, decimals: 6 }], prices: new Map([[SOL_MINT, prices.get(SOL_MINT)!], [USDC, null]]) }))
    expect(noPrice).toEqual({ ok: false, reason: `no valid oracle price for token ${USDC}` })
    const noSol = valuePortfolio(inputs({ tokens: [{ mint: USDC, amount: 1n, decimals: 6 }], prices: new Map([[USDC, prices.get(USDC)!]]) }))
    expect(noSol).toEqual({ ok: false, reason: `no valid oracle price for SOL, needed to value token ${USDC}` })
    const noPool = valuePortfolio(inputs({ positions: [{ protocol: "liquid-staking", positionType: "stake", token: LST, amount: 1n, valueLamports: 1n }] }))
    expect(noPool.ok).toBe(false)
  })

  it("a stale price (too old to use) values nothing: the token, or anything that needs SOL's price, fails closed with the reason", () => {
    const stale = { stale: "oracle price of USDC is stale: 3600 s old" }
    const staleToken = valuePortfolio(inputs({ tokens: [{ mint: USDC, amount: 1n, decimals: 6 }], prices: new Map<string, PriceQuote | StaleQuote>([[SOL_MINT, prices.get(SOL_MINT)!], [USDC, stale]]) }))
    expect(staleToken).toEqual({ ok: false, reason: `oracle price of USDC is stale: 3600 s old: cannot value token ${USDC}` })
    const staleSol = new Map<string, PriceQuote | StaleQuote>([[SOL_MINT, { stale: "oracle price of SOL is stale: 120 s old" }], [USDC, prices.get(USDC)!]])
    const borrow = valuePortfolio(inputs({ positions: [{ protocol: "lending-market", positionType: "borrow", token: USDC, amount: 1n, valueLamports: 0n }], prices: staleSol }))
    expect(borrow).toEqual({ ok: false, reason: `oracle price of SOL is stale: 120 s old: cannot value lending-market borrow position of ${USDC}` })
    // a wallet of SOL alone needs no price at all
    expect(valued({ prices: staleSol }).totalLamports).toBe(2n * SOL)
  })
})
