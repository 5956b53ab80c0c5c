/**
 * Portfolio risk on a lending position (issue 15: "a lending position pushed into loss past maxDailyLossLamports
 * denies the next spend and pauses the agent"), through the pipeline on the local ledger's seeded market: the
 * wallet buys USDC on amm-one and supplies it to the lending market, so its value sits in a `supply` position
 * valued at the USDC oracle price (docs/decisions/portfolio.md). The operator halves that price: the supply is
 * worth about 1 SOL less with no spend at all, the agent's next SOL transfer is denied at policy naming the daily
 * loss, and the supervisor pauses the agent (autoPauseOnBreach).
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../../src/protocols/lending/lendingIds.js"
import { dataOf, makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { tokenBalance } from "../support/pools.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { agentRecord, createAgent, TENANT_KEYS, tenant, waitUntil } from "../agents/runtime/harness.js"

const SOL = 1_000_000_000
const USDC = mintBySymbol("USDC").address

// `lending` loads the AMM programs and their seeded pools too (the market needs their mints and price feeds)
const env = useServiceWithLedger({
  ledger: { lending: true },
  env: {
    API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_LOOP_INTERVAL_MS: "200",
    AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], LENDING_MARKET_PROGRAM_ID: LOCAL_LENDING_MARKET_PROGRAM_ID
  }
})
const base = () => env.service.baseUrl
const operator = () => makeClient(base())

/** Waits for the transaction a create (or an agent's execute) answered, and returns its decoded record. */
const settle = async (created: { readonly status: number; readonly body: unknown; readonly data: { readonly id: string } | undefined }, headers: Record<string, string>) =>
  (await waitSettled(base(), dataOf(created).id, 60_000, headers)).data

const usdcPrice = async () => {
  const listed = dataOf(await operator().defi.oraclePrices({}))
  const usdc = listed.prices.find((p) => p.symbol === "USDC")?.price
  if (usdc === undefined || usdc === null) throw new Error("the ledger has no USDC price")
  return BigInt(usdc)
}
const setUsdcPrice = async (price: bigint) => {
  const put = await operator().defi.setOraclePrice({ params: { symbol: "USDC" }, body: { price: price.toString(), exponent: -8 } })
  expect(put.status).toBe(200)
}
const supplyPosition = async (walletId: string, headers: Record<string, string>) => {
  const listed = dataOf(await makeClient(base(), headers).positions.list({ params: { walletId } }))
  return listed.positions.find((p) => p.protocol === "lending-market" && p.type === "supply")
}

describe("portfolio risk on a lending position", () => {
  it("a supply position pushed into loss past maxDailyLossLamports denies the agent's next spend and pauses the agent", async () => {
    const headers = tenant(0)
    const wallet = await createWallet(base(), 5 * SOL, headers)

    // about 2 SOL of USDC, bought through the pipeline, then all of it supplied to the market
    const swap = await settle(await submit(base(), {
      walletId: wallet.id, type: "swap", protocol: "amm-one",
      intent: { inputMint: NATIVE_MINT.toBase58(), outputMint: USDC.toBase58(), amount: String(2 * SOL), slippageBps: 100 }
    }, headers), headers)
    expect(swap.status).toBe("confirmed")
    const usdc = await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, USDC)
    expect(usdc).toBeGreaterThan(0n)
    const supplied = await settle(await submit(base(), {
      walletId: wallet.id, type: "lend_supply", protocol: "lending-market", intent: { mint: USDC.toBase58(), amount: usdc.toString() }
    }, headers), headers)
    expect(supplied.status).toBe("confirmed")
    expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, USDC)).toBe(0n)
    const supply = await supplyPosition(wallet.id, headers)
    expect(supply).toMatchObject({ token: USDC.toBase58(), amount: usdc.toString() })
    // the supply is worth about the 2 SOL that bought it
    expect(Number(supply?.valueLamports)).toBeGreaterThan(1.9 * SOL)
    expect(Number(supply?.valueLamports)).toBeLessThan(2.1 * SOL)

    const client = makeClient(base(), headers)
    const put = await client.risk.putPortfolio({ params: { walletId: wallet.id }, body: { maxDailyLossLamports: 0.5 * SOL, autoPauseOnBreach: true } })
    expect(put.status).toBe(200)
    const agent = await createAgent(env.service, headers, { walletId: wallet.id, autonomy: { enabled: false } })
    const execute = async () =>
      settle(await client.agents.execute({
        params: { agentId: agent.id },
        body: { type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 0.01 * SOL } }
      }), headers)

    // the day's first valuation (about 5 SOL, 2 of them in the supply): a small transfer is within the limit
    expect((await execute()).status).toBe("confirmed")
    expect((await agentRecord(env.service, agent.id, headers)).status).not.toBe("paused")

    const before = await usdcPrice()
    await setUsdcPrice(before / 2n)
    try {
      const denied = await execute()
      expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
      const reason = denied.policyDecision?.reasons.join(" ") ?? ""
      const loss = Number(/portfolio risk controls: daily loss (\d+) exceeds maxDailyLossLamports 500000000/.exec(reason)?.[1])
      // half of the supply's value (about 1 SOL) plus the first transfer and this one
      expect(loss).toBeGreaterThan(0.9 * SOL)
      expect(loss).toBeLessThan(1.1 * SOL)
      await waitUntil("the automatic pause", async () => (await agentRecord(env.service, agent.id, headers)).status === "paused")
      expect((await agentRecord(env.service, agent.id, headers)).pausedReason).toMatch(/^portfolio breach: transaction [0-9a-f-]{36}: .*daily loss \d+ exceeds maxDailyLossLamports/)
      // the supply position itself is untouched on chain: the loss is the price
      const shown = await supplyPosition(wallet.id, headers)
      expect(shown?.amount).toBe(usdc.toString())
      expect(Number(shown?.valueLamports)).toBeLessThan(1.1 * SOL)
    } finally {
      await setUsdcPrice(before)
    }
  })
})
