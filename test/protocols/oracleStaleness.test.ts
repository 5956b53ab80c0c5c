/**
 * The oracle price-age bound (ORACLE_MAX_PRICE_AGE_SECONDS, 60 s by default; docs/decisions/oracle.md) through the
 * service on the local ledger's seeded market. Staleness is driven for real: the operator posts a feed's price with
 * a publish time an hour before the chain's clock (PUT /defi/oracle/prices with publishTime, the ledger's
 * setPythPriceUpdate), which also stalls the feed (the ledger's refresher leaves it); a post without one makes it
 * live again. Stale, a wallet with portfolio limits is denied at policy naming the feed and its age, a borrow fails
 * closed at build, positions show the value as unavailable, and a swap's quote is not compared with the oracle.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../../src/protocols/lending/lendingIds.js"
import { dataOf, makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const SOL = 1_000_000_000
const USDC = mintBySymbol("USDC").address.toBase58()
const HOUR_AGO = () => new Date(Date.now() - 3_600_000).toISOString()

const env = useServiceWithLedger({
  ledger: { lending: true },
  env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], LENDING_MARKET_PROGRAM_ID: LOCAL_LENDING_MARKET_PROGRAM_ID }
})
const base = () => env.service.baseUrl
const client = () => makeClient(base())

const settle = async (body: Record<string, unknown>) => {
  const created = await submit(base(), body)
  expect(created.status).toBe(201)
  return (await waitSettled(base(), dataOf(created).id, 60_000)).data
}
const listed = async (symbol: string) => {
  const prices = dataOf(await client().defi.oraclePrices({}))
  const price = prices.prices.find((p) => p.symbol === symbol)
  if (price === undefined || price.price === null) throw new Error(`the ledger has no ${symbol} price`)
  return { ...price, maxPriceAgeSeconds: prices.maxPriceAgeSeconds }
}
/** Posts `symbol`'s current price again: published `publishTime` (and stalled there), or now (live again). */
const repost = async (symbol: string, publishTime?: string) => {
  const { price, exponent } = await listed(symbol)
  const put = await client().defi.setOraclePrice({
    params: { symbol }, body: { price: price!, exponent: exponent!, ...(publishTime === undefined ? {} : { publishTime }) }
  })
  expect(put.status).toBe(200)
}
/** Runs `body` with `symbol`'s price published an hour ago, then makes the feed live again. */
const whileStale = async (symbol: string, body: () => Promise<void>) => {
  await repost(symbol, HOUR_AGO())
  try {
    await body()
  } finally {
    await repost(symbol)
  }
}
const STALE = (symbol: string) => new RegExp(`oracle price of ${symbol} \\(Pyth feed [0-9a-f]{8}, account \\w+\\) is stale: (\\d+) s old by the chain's clock .*above the 60 s bound`)

describe("oracle price-age bound", () => {
  it("lists each price's age by the chain's clock; the ledger keeps its feeds fresh, and a post an hour old is listed stale", async () => {
    const fresh = await listed("SOL")
    expect(fresh).toMatchObject({ stale: false, maxPriceAgeSeconds: 60 })
    expect(fresh.ageSeconds).toBeGreaterThanOrEqual(0)
    expect(fresh.ageSeconds).toBeLessThanOrEqual(60)
    await whileStale("SOL", async () => {
      const stale = await listed("SOL")
      expect(stale.stale).toBe(true)
      expect(stale.ageSeconds).toBeGreaterThanOrEqual(3_590)
      expect(stale.price).toBe(fresh.price)
    })
    expect((await listed("SOL")).stale).toBe(false)
  })

  it("refuses a publishTime that is not a timestamp with a 400 naming the field", async () => {
    const bad = await api(base(), "PUT", "/api/v1/defi/oracle/prices/SOL", { price: "15000000000", exponent: -8, publishTime: "an hour ago" })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("publishTime")
  })

  it("a stale USDC price denies a transfer of a wallet with a portfolio limit at policy, naming the feed and its age; fresh, it confirms", async () => {
    const wallet = await createWallet(base(), 5 * SOL)
    const swap = await settle({
      walletId: wallet.id, type: "swap", protocol: "amm-one",
      intent: { inputMint: NATIVE_MINT.toBase58(), outputMint: USDC, amount: String(SOL), slippageBps: 100 }
    })
    expect(swap.status).toBe("confirmed")
    expect((await api(base(), "PUT", `/api/v1/risk/portfolio/${wallet.id}`, { maxDailyLossLamports: 3 * SOL })).status).toBe(200)
    const transfer = () => settle({
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 0.01 * SOL }
    })
    expect((await transfer()).status).toBe("confirmed")

    await whileStale("USDC", async () => {
      const denied = await transfer()
      expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
      const reasons = denied.policyDecision?.reasons.join(" ") ?? ""
      expect(reasons).toContain("portfolio risk controls: projected portfolio metrics are unavailable")
      expect(Number(STALE("USDC").exec(reasons)?.[1])).toBeGreaterThanOrEqual(3_590)
    })
    // live again: the same transfer confirms
    expect((await transfer()).status).toBe("confirmed")
  })

  it("a borrow on a stale SOL price fails closed at build naming the feed and its age, positions show no value; fresh, the borrow confirms", async () => {
    const wallet = await createWallet(base(), 8 * SOL)
    const supplied = await settle({ walletId: wallet.id, type: "lend_supply", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: String(5 * SOL) } })
    expect(supplied.status).toBe("confirmed")
    const borrow = () => settle({ walletId: wallet.id, type: "lend_borrow", protocol: "lending-market", intent: { mint: USDC, amount: "100000000" } })
    const supplyPosition = async () =>
      dataOf(await client().positions.list({ params: { walletId: wallet.id } })).positions.find((p) => p.protocol === "lending-market" && p.type === "supply")

    await whileStale("SOL", async () => {
      const refused = await borrow()
      expect(refused).toMatchObject({ status: "failed", errorCode: "PIPELINE_ERROR", failedAt: "build" })
      expect(Number(STALE("SOL").exec(refused.error ?? "")?.[1])).toBeGreaterThanOrEqual(3_590)
      // never signed: nothing was borrowed
      expect(refused.signature ?? null).toBeNull()
      // the borrow preview refuses the same way, in the spec's envelope
      const preview = await api(base(), "POST", "/api/v1/defi/lend/borrow", { protocol: "lending-market", wallet: wallet.publicKey, mint: USDC, amount: "100000000" })
      expect(preview.status).toBe(500)
      expect(preview.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", stage: "build" })
      expect(preview.body.error).toMatch(STALE("SOL"))
      // the supply is shown without a value (a stale number is never shown), with the reason
      const position = await supplyPosition()
      expect(position?.value).toBeUndefined()
      expect(position?.valueUnavailable).toMatch(STALE("SOL"))
    })
    expect((await borrow()).status).toBe("confirmed")
    expect(await supplyPosition()).toMatchObject({ value: "750.000000" })
  })

  it("a withdrawal is judged on fresh prices only while a borrow is open: with none it comes out on a stale price", async () => {
    const withdraw = (walletId: string, lamports: number) =>
      settle({ walletId, type: "lend_withdraw", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: String(lamports) } })
    const saver = await createWallet(base(), 4 * SOL)
    expect((await settle({ walletId: saver.id, type: "lend_supply", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: String(2 * SOL) } })).status).toBe("confirmed")
    const borrower = await createWallet(base(), 8 * SOL)
    expect((await settle({ walletId: borrower.id, type: "lend_supply", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: String(5 * SOL) } })).status).toBe("confirmed")
    expect((await settle({ walletId: borrower.id, type: "lend_borrow", protocol: "lending-market", intent: { mint: USDC, amount: "100000000" } })).status).toBe("confirmed")

    await whileStale("SOL", async () => {
      // no borrow: no price matters, the supply comes out
      expect(await withdraw(saver.id, SOL)).toMatchObject({ status: "confirmed" })
      // a borrow open: the program would judge the withdrawal on the stale price, so it is refused unsigned
      const refused = await withdraw(borrower.id, SOL)
      expect(refused).toMatchObject({ status: "failed", errorCode: "PIPELINE_ERROR", failedAt: "build" })
      expect(refused.error).toMatch(STALE("SOL"))
      expect(refused.signature ?? null).toBeNull()
    })
    expect(await withdraw(borrower.id, SOL)).toMatchObject({ status: "confirmed" })
  })

  it("a borrow built on a fresh price but approved once it is stale is not signed: built again after approval, the stale price refuses it", async () => {
    const wallet = await createWallet(base(), 8 * SOL)
    expect((await settle({ walletId: wallet.id, type: "lend_supply", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: String(5 * SOL) } })).status).toBe("confirmed")
    // the borrow opens the wallet's USDC account (its rent leaves the wallet): above 1,000,000 lamports asks for approval
    const policy = await api(base(), "POST", "/api/v1/policies", {
      walletId: wallet.id, name: "approve lending", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 1_000_000 }]
    })
    expect(policy.status).toBe(201)
    const gated = await settle({ walletId: wallet.id, type: "lend_borrow", protocol: "lending-market", intent: { mint: USDC, amount: "100000000" } })
    expect(gated.status).toBe("approval_gate")
    await whileStale("SOL", async () => {
      expect((await api(base(), "POST", `/api/v1/transactions/${gated.id}/approve`)).status).toBe(200)
      const settled = (await waitSettled(base(), gated.id, 60_000)).data
      // approvals outlive blockhashes (issue 31): the borrow is built again before signing, on the price as it is then
      expect(settled).toMatchObject({ status: "failed", errorCode: "PIPELINE_ERROR", failedAt: "build" })
      expect(Number(STALE("SOL").exec(settled.error ?? "")?.[1])).toBeGreaterThanOrEqual(3_590)
      expect(settled.signature ?? null).toBeNull()
    })
  })

  it("a swap's quote is not compared with a stale oracle price: the quote says why, and requireOracleForSwap denies naming the feed", async () => {
    const wallet = await createWallet(base(), 3 * SOL)
    const intent = { inputMint: NATIVE_MINT.toBase58(), outputMint: USDC, amount: String(0.1 * SOL), slippageBps: 100 }
    await whileStale("USDC", async () => {
      const quote = dataOf(await client().defi.quote({ body: { protocol: "amm-one", wallet: wallet.publicKey, ...intent } }))
      expect(quote.oracle).toBeNull()
      expect(quote.oracleUnavailable).toMatch(STALE("USDC"))

      const put = await client().risk.putProtocol({ params: { protocol: "amm-one" }, body: { requireOracleForSwap: true } })
      expect(put.status).toBe(200)
      try {
        const denied = await settle({ walletId: wallet.id, type: "swap", protocol: "amm-one", intent })
        expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
        expect(denied.policyDecision?.reasons.join(" ")).toMatch(/an oracle price is required for a swap: oracle price of USDC .* is stale/)
      } finally {
        await client().risk.putProtocol({ params: { protocol: "amm-one" }, body: { requireOracleForSwap: false } })
      }
    })
  })

  it("a swap approved after its quote outlived maxQuoteAgeSeconds is quoted again before signing: it signs a fresh quote with the approved effect", async () => {
    const wallet = await createWallet(base(), 3 * SOL)
    const policy = await api(base(), "POST", "/api/v1/policies", {
      walletId: wallet.id, name: "approve swaps", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 1_000_000 }]
    })
    expect(policy.status).toBe(201)
    expect((await client().risk.putProtocol({ params: { protocol: "amm-one" }, body: { maxQuoteAgeSeconds: 3 } })).status).toBe(200)
    try {
      const gated = await settle({
        walletId: wallet.id, type: "swap", protocol: "amm-one",
        intent: { inputMint: NATIVE_MINT.toBase58(), outputMint: USDC, amount: String(0.1 * SOL), slippageBps: 100 }
      })
      expect(gated.status).toBe("approval_gate")
      // the quote was judged fresh at policy; the approval comes after it is more than 3 s old
      await new Promise((resolve) => setTimeout(resolve, 4_500))
      expect((await api(base(), "POST", `/api/v1/transactions/${gated.id}/approve`)).status).toBe(200)
      const settled = (await waitSettled(base(), gated.id, 60_000)).data
      // approvals outlive blockhashes and quotes (issue 31): built again (a fresh quote) and signed only because its
      // effect equals the approved preview; the quote-age bound still holds for what is signed
      expect(settled.status, settled.error).toBe("confirmed")
      expect(settled.history.find((entry) => entry.message?.includes("built again after approval"))).toBeDefined()
    } finally {
      await client().risk.putProtocol({ params: { protocol: "amm-one" }, body: { maxQuoteAgeSeconds: null } })
    }
  })
})
