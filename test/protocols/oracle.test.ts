/**
 * Oracle prices in Pyth's PriceUpdateV2 layout on the seeded local ledger: listed, compared with quotes,
 * moved by an operator; a swap whose quote deviates from the oracle beyond oracleDeviationBps waits for
 * approval, and requireOracleForSwap passes when both mints are priced.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { decodePriceUpdate, PYTH_RECEIVER_PROGRAM_ID } from "../../src/protocols/oracle/priceUpdate.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import type { OraclePrices, SwapQuote } from "../support/undeclaredAnswers.js"

const env = useServiceWithLedger({
  ledger: { amm: true },
  env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"] }
})

const SOL = NATIVE_MINT.toBase58()
const USDC = mintBySymbol("USDC").address.toBase58()
const intent = { inputMint: SOL, outputMint: USDC, amount: "100000000", slippageBps: 100 }

describe("oracle prices", () => {
  it("lists the seeded PriceUpdateV2 accounts, owned by the Pyth receiver program", async () => {
    const listed = await api<OraclePrices>(env.service.baseUrl, "GET", "/api/v1/defi/oracle/prices")
    expect(listed.status).toBe(200)
    const sol = listed.body.data.prices.find((p) => p.symbol === "SOL")!
    expect(sol).toMatchObject({ mint: SOL, price: "15000000000", exponent: -8 })
    const account = await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(new PublicKey(sol.account))
    expect(account?.owner.toBase58()).toBe(PYTH_RECEIVER_PROGRAM_ID.toBase58())
    expect(decodePriceUpdate(account!.data)).toMatchObject({ feedId: sol.feedId, price: 15_000_000_000n, exponent: -8 })
  })

  it("puts the oracle price and its deviation in a quote, and asks for approval when the deviation is beyond the bound", async () => {
    const wallet = await createWallet(env.service.baseUrl, 3_000_000_000)
    const quote = await api<SwapQuote>(env.service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "amm-one", ...intent, wallet: wallet.publicKey })
    expect(quote.body.data.oracle).toMatchObject({ oraclePrice: "0.150000000000" })
    // fee 30 bps plus a little price impact
    expect(quote.body.data.oracle?.deviationBps).toBeGreaterThanOrEqual(30)
    expect(quote.body.data.oracle?.deviationBps).toBeLessThan(60)

    await makeClient(env.service.baseUrl).risk.putProtocol({ params: { protocol: "amm-one" }, body: { oracleDeviationBps: 500, requireOracleForSwap: true } })
    const within = await submit(env.service.baseUrl, { walletId: wallet.id, type: "swap", protocol: "amm-one", intent })
    expect((await waitSettled(env.service.baseUrl, within.body.data.id, 60_000)).body.data.status).toBe("confirmed")

    const moved = await api(env.service.baseUrl, "PUT", "/api/v1/defi/oracle/prices/SOL", { price: "10000000000", exponent: -8 })
    expect(moved.status).toBe(200)
    const beyond = await submit(env.service.baseUrl, { walletId: wallet.id, type: "swap", protocol: "amm-one", intent })
    const waiting = (await waitSettled(env.service.baseUrl, beyond.body.data.id, 60_000)).body.data
    expect(waiting.status).toBe("approval_gate")
    expect(JSON.stringify(waiting.policyDecision?.reasons)).toContain("oracle deviation")
    await makeClient(env.service.baseUrl).risk.putProtocol({ params: { protocol: "amm-one" }, body: { oracleDeviationBps: null, requireOracleForSwap: false } })
  })

  it("refuses a bad price with a 400 naming the field, and an unknown feed with a 404", async () => {
    const bad = await api(env.service.baseUrl, "PUT", "/api/v1/defi/oracle/prices/SOL", { price: "-5", exponent: -8 })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("price")
    expect((await api(env.service.baseUrl, "PUT", "/api/v1/defi/oracle/prices/DOGE", { price: "5", exponent: -8 })).status).toBe(404)
  })
})
