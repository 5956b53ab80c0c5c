/** The swap token-flow delta guard: exact input debit, output at least the minimum, SOL sides skipped. */
import { NATIVE_MINT } from "@solana/spl-token"
import { describe, expect, it } from "vitest"
import { evaluateSwapTokenDeltas } from "../../src/pipeline/tokenDeltaGuard.js"

const WALLET = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
const OTHER = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"
const IN = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const OUT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"
const balance = (owner: string, mint: string, amount: bigint) => ({ owner, mint, uiTokenAmount: { amount: amount.toString() } })

describe("swap token delta guard", () => {
  const flow = { wallet: WALLET, inputMint: IN, outputMint: OUT, amount: 100n, minimumOut: 50n }
  it("passes an exact debit and an output at or above the minimum, ignoring other owners", () => {
    const deltas = evaluateSwapTokenDeltas({
      ...flow,
      preTokenBalances: [balance(WALLET, IN, 1000n), balance(OTHER, OUT, 5000n)],
      postTokenBalances: [balance(WALLET, IN, 900n), balance(WALLET, OUT, 50n), balance(OTHER, OUT, 4950n)]
    })
    expect(deltas).toEqual([
      { mint: IN, observedDelta: -100n, expectedDelta: -100n, ok: true },
      { mint: OUT, observedDelta: 50n, minimumDelta: 50n, ok: true }
    ])
  })
  it("fails a debit other than the amount, and an output below the minimum", () => {
    const deltas = evaluateSwapTokenDeltas({
      ...flow,
      preTokenBalances: [balance(WALLET, IN, 1000n)],
      postTokenBalances: [balance(WALLET, IN, 899n), balance(WALLET, OUT, 49n)]
    })
    expect(deltas.map((d) => d.ok)).toEqual([false, false])
  })
  it("skips a wrapped-SOL side (opened and closed within the transaction)", () => {
    const deltas = evaluateSwapTokenDeltas({ ...flow, inputMint: NATIVE_MINT.toBase58(), preTokenBalances: [], postTokenBalances: [balance(WALLET, OUT, 60n)] })
    expect(deltas).toEqual([{ mint: OUT, observedDelta: 60n, minimumDelta: 50n, ok: true }])
  })
})
