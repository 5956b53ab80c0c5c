/**
 * Portfolio risk on the portfolio's VALUE (docs/decisions/portfolio.md), through the pipeline on the local ledger:
 * a wallet holds USDC bought by a real swap, valued at the Pyth oracle accounts; when the operator moves the
 * oracle price, the value falls with no spend at all, and the next plain SOL transfer is judged on it. Daily loss
 * past maxDailyLossLamports denies it at policy and pauses the owning agent (autoPauseOnBreach); a drawdown past a
 * portfolio_risk rule's maxDrawdownLamports denies it naming the rule; token exposure counts the USDC held at its
 * oracle value, and a swap past maxExposureBpsPerToken waits for approval; a token payment loses the value it sends.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { useServiceWithLedger } from "../support/harness.js"
import { tokenBalance } from "../support/pools.js"
import { dataOf, makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { agentRecord, createAgent, TENANT_KEYS, tenant, waitUntil } from "../agents/runtime/harness.js"

const SOL = 1_000_000_000
const USDC = mintBySymbol("USDC").address.toBase58()
const OPERATOR = { "x-api-key": "test-admin-key" }

const env = useServiceWithLedger({
  ledger: { amm: true },
  env: {
    API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_LOOP_INTERVAL_MS: "200",
    AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"]
  }
})

const base = () => env.service.baseUrl
const destination = () => Keypair.generate().publicKey.toBase58()

/** Waits for the transaction a create (or an agent's execute) answered, and returns its decoded record. */
const settle = async (created: { readonly status: number; readonly body: unknown; readonly data: { readonly id: string } | undefined }, headers: Record<string, string>) =>
  (await waitSettled(base(), dataOf(created).id, 60_000, headers)).data

/** A wallet holding USDC worth about `solIn` lamports, bought on amm-one through the pipeline. */
const walletWithUsdc = async (headers: Record<string, string>, lamports: number, solIn: number) => {
  const wallet = await createWallet(base(), lamports, headers)
  const swap = await settle(await submit(base(), {
    walletId: wallet.id, type: "swap", protocol: "amm-one",
    intent: { inputMint: NATIVE_MINT.toBase58(), outputMint: USDC, amount: String(solIn), slippageBps: 100 }
  }, headers), headers)
  expect(swap.status).toBe("confirmed")
  expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, mintBySymbol("USDC").address)).toBeGreaterThan(0n)
  return wallet
}

/** Runs `body` with the oracle price of `symbol` moved by `move`, then puts the price back (one ledger per file). */
const withOraclePrice = async (symbol: string, move: (price: bigint) => bigint, body: () => Promise<void>) => {
  const before = await currentPrice(symbol)
  await setOraclePrice(symbol, move(before))
  try {
    await body()
  } finally {
    await setOraclePrice(symbol, before)
  }
}

/** Sets the oracle price of `symbol` (price x 10^-8 USD), as an operator of the deployment. */
const setOraclePrice = async (symbol: string, price: bigint) => {
  const put = await api(base(), "PUT", `/api/v1/defi/oracle/prices/${symbol}`, { price: price.toString(), exponent: -8 }, OPERATOR)
  expect(put.status).toBe(200)
}

const currentPrice = async (symbol: string) => {
  const listed = dataOf(await makeClient(base(), OPERATOR).defi.oraclePrices({}))
  const price = listed.prices.find((p) => p.symbol === symbol)?.price
  if (price === undefined || price === null) throw new Error(`the ledger has no ${symbol} price`)
  return BigInt(price)
}

describe("portfolio risk on oracle values", () => {
  it("a price fall past maxDailyLossLamports denies the agent's next transfer at policy and pauses the agent", async () => {
    const headers = tenant(0)
    const wallet = await walletWithUsdc(headers, 5 * SOL, 2 * SOL)
    const put = await api(base(), "PUT", `/api/v1/risk/portfolio/${wallet.id}`, { maxDailyLossLamports: 0.5 * SOL, autoPauseOnBreach: true }, headers)
    expect(put.status).toBe(200)
    const agent = await createAgent(env.service, headers, { walletId: wallet.id, autonomy: { enabled: false } })
    const execute = async (lamports: number) =>
      settle(await makeClient(base(), headers).agents.execute({
        params: { agentId: agent.id },
        body: { type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports } }
      }), headers)

    // the first valuation of the day (about 5 SOL, 2 of them in USDC): a small transfer is well within the limit
    expect((await execute(0.01 * SOL)).status).toBe("confirmed")

    // USDC halves at the oracle: the wallet's USDC is worth about 1 SOL less, with no spend at all
    await withOraclePrice("USDC", (price) => price / 2n, async () => {
      const denied = await execute(0.01 * SOL)
      expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
      const reason = (denied.policyDecision?.reasons.join(" ") ?? "")
      const loss = Number(/portfolio risk controls: daily loss (\d+) exceeds maxDailyLossLamports 500000000/.exec(reason)?.[1])
      // about 1 SOL of USDC value lost, plus the transfer
      expect(loss).toBeGreaterThan(0.9 * SOL)
      expect(loss).toBeLessThan(1.1 * SOL)
      await waitUntil("the automatic pause", async () => (await agentRecord(env.service, agent.id, headers)).status === "paused")
      expect((await agentRecord(env.service, agent.id, headers)).pausedReason).toMatch(/^portfolio breach: transaction [0-9a-f-]{36}: .*daily loss \d+ exceeds maxDailyLossLamports/)
    })
  })

  it("a rise of SOL against the wallet's USDC past a portfolio_risk rule's maxDrawdownLamports denies the next transfer naming the rule", async () => {
    const headers = tenant(1)
    const wallet = await walletWithUsdc(headers, 5 * SOL, 2 * SOL)
    const policy = await api(base(), "POST", "/api/v1/policies", { walletId: wallet.id, name: "drawdown", rules: [{ type: "portfolio_risk", maxDrawdownLamports: 0.5 * SOL }] }, headers)
    expect(policy.status).toBe(201)
    const transfer = async (lamports: number) =>
      settle(await submit(base(), { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports } }, headers), headers)

    // the peak is observed here (about 5 SOL)
    expect((await transfer(0.01 * SOL)).status).toBe("confirmed")
    // SOL doubles in USD: the same USDC is worth half as many lamports, about 1 SOL below the peak
    await withOraclePrice("SOL", (price) => price * 2n, async () => {
      const denied = await transfer(0.01 * SOL)
      expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
      expect((denied.policyDecision?.reasons.join(" ") ?? "")).toMatch(/portfolio_risk: drawdown \d+ exceeds maxDrawdownLamports 500000000/)

      // POST /evaluate judges the same value (a what-if: it records nothing)
      const whatIf = dataOf(await makeClient(base(), headers).policies.evaluate({ body: { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", amountLamports: 1 } }))
      expect(whatIf.decision).toBe("deny")
      expect(whatIf.reasons.join(" ")).toMatch(/portfolio_risk: drawdown \d+ exceeds maxDrawdownLamports 500000000/)
    })
    // the price back where it was, the value is back near its peak: a transfer confirms
    expect((await transfer(0.01 * SOL)).status).toBe("confirmed")
  })

  it("token exposure counts the USDC the wallet holds at its oracle value: a swap past maxExposureBpsPerToken waits for approval", async () => {
    const headers = tenant(2)
    const wallet = await walletWithUsdc(headers, 5 * SOL, 2 * SOL)
    const put = await api(base(), "PUT", `/api/v1/risk/portfolio/${wallet.id}`, { maxExposureBpsPerToken: 5_000 }, headers)
    expect(put.status).toBe(200)
    const swap = async (lamports: number) =>
      settle(await submit(base(), {
        walletId: wallet.id, type: "swap", protocol: "amm-one",
        intent: { inputMint: NATIVE_MINT.toBase58(), outputMint: USDC, amount: String(lamports), slippageBps: 100 }
      }, headers), headers)
    // about 2 SOL of USDC held, 0.2 more, of about 5: about 4400 bps, under the limit
    expect((await swap(0.2 * SOL)).status).toBe("confirmed")
    // about 2.2 held, 1 more: about 6400 bps
    const held = await swap(1 * SOL)
    expect(held).toMatchObject({ status: "approval_gate", awaitingApproval: true })
    const bps = Number(new RegExp(`exposure to token ${USDC} would be (\\d+) bps, above maxExposureBpsPerToken 5000`).exec(held.policyDecision?.reasons.join(" ") ?? "")?.[1])
    expect(bps).toBeGreaterThan(6_000)
    expect(bps).toBeLessThan(6_800)
  })

  it("a token payment takes the value of the tokens it sends: USDC worth more than maxDailyLossLamports is denied at its own decision", async () => {
    const headers = tenant(3)
    const wallet = await walletWithUsdc(headers, 5 * SOL, 2 * SOL)
    const usdc = await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, mintBySymbol("USDC").address)
    const put = await api(base(), "PUT", `/api/v1/risk/portfolio/${wallet.id}`, { maxDailyLossLamports: 0.5 * SOL }, headers)
    expect(put.status).toBe(200)
    const send = async (amount: bigint) =>
      settle(await submit(base(), {
        walletId: wallet.id, type: "transfer_spl", protocol: "spl-token", intent: { destination: destination(), mint: USDC, amount: amount.toString() }
      }, headers), headers)
    // a tenth of the USDC, about 0.2 SOL of value: within the limit
    expect((await send(usdc / 10n)).status).toBe("confirmed")
    // half of it, about 1 SOL more: past the day's 0.5 SOL
    const denied = await send(usdc / 2n)
    expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect((denied.policyDecision?.reasons.join(" ") ?? "")).toMatch(/portfolio risk controls: daily loss \d+ exceeds maxDailyLossLamports 500000000/)
  })
})
