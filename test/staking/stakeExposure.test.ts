/**
 * Portfolio risk on real stake positions, through the pipeline: the wallet's liquid-staking exposure is what
 * its indexed stake position is worth (at the pool's live rate) plus the new stake, over the portfolio's value; a
 * stake past maxExposureBpsPerProtocol waits for approval, a smaller one confirms. POST /evaluate judges a
 * portfolio_risk rule on the same position value (docs/decisions/portfolio.md).
 */
import { describe, expect, it } from "vitest"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import type { Position } from "../../src/positions/walletPositions.js"

const SOL = 1_000_000_000

const env = useServiceWithLedger({ ledger: { staking: true }, env: { LIQUID_STAKING_PROGRAM_ID: LOCAL_LIQUID_STAKING_PROGRAM_ID } })
const client = () => makeClient(env.service.baseUrl)

const stake = async (walletId: string, lamports: number) => {
  const created = await submit(env.service.baseUrl, { walletId, type: "stake", protocol: "liquid-staking", intent: { amount: String(lamports) } })
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body.data
}

describe("portfolio risk on stake positions", () => {
  it("a stake that would put more than maxExposureBpsPerProtocol in liquid-staking waits for approval", async () => {
    const wallet = await createWallet(env.service.baseUrl, 3 * SOL)
    const put = await client().risk.putPortfolio({ params: { walletId: wallet.id }, body: { maxExposureBpsPerProtocol: 2_000 } })
    expect(put.status).toBe(200)
    // 0.3 SOL of about 3: about 1000 bps, under the limit
    expect((await stake(wallet.id, 0.3 * SOL)).status).toBe("confirmed")
    const positions = (await api<{ readonly positions: ReadonlyArray<Position> }>(env.service.baseUrl, "GET", `/api/v1/wallets/${wallet.id}/positions`)).body.data.positions
    expect(positions.filter((p) => p.type === "stake")).toHaveLength(1)

    // the 0.3 SOL position plus 0.5 SOL more, of about 3: about 2700 bps, over 2000
    const held = await stake(wallet.id, 0.5 * SOL)
    expect(held).toMatchObject({ status: "approval_gate", awaitingApproval: true })
    expect(held.policyDecision?.decision).toBe("require_approval")
    const reason = held.policyDecision?.reasons.join(" ")
    const bps = Number(/exposure to protocol liquid-staking would be (\d+) bps, above maxExposureBpsPerProtocol 2000/.exec(reason ?? "")?.[1])
    expect(bps).toBeGreaterThan(2_500)
    expect(bps).toBeLessThan(2_900)

    // approved, it executes
    const approved = await client().transactions.approve({ params: { txId: held.id }, body: {} })
    expect(approved.status).toBe(200)
    const done = (await waitSettled(env.service.baseUrl, held.id, 60_000)).body.data
    expect(done.status).toBe("confirmed")
  })

  it("POST /evaluate values the stake position for a portfolio_risk rule", async () => {
    const wallet = await createWallet(env.service.baseUrl, 3 * SOL)
    const policy = await client().policies.create({ body: { walletId: wallet.id, name: "exposure", rules: [{ type: "portfolio_risk", maxExposureBpsPerProtocol: 2_000 }] } })
    expect(policy.status).toBe(201)
    expect((await stake(wallet.id, 0.3 * SOL)).status).toBe("confirmed")
    const evaluate = (lamports: number) =>
      client().policies.evaluate({ body: { walletId: wallet.id, type: "stake", protocol: "liquid-staking", amountLamports: lamports } })
    const small = await evaluate(0.1 * SOL)
    expect(small.body.data.decision).toBe("allow")
    const large = await evaluate(0.5 * SOL)
    expect(large.body.data.decision).toBe("require_approval")
    expect(large.body.data.reasons.join(" ")).toMatch(/exposure to protocol liquid-staking would be \d+ bps, above maxExposureBpsPerProtocol 2000/)
  })
})
