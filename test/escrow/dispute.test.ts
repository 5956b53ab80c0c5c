/**
 * Disputes and refunds through the helpers over HTTP on the real ledger: create, accept, dispute,
 * resolve both ways (`winnerIsCreator` false pays the counterparty less the fee, true refunds the
 * creator); a creator's refund before the deadline is refused readably, after it returns the amount.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import type { WalletEscrow } from "../support/undeclaredAnswers.js"
import { api } from "../support/service.js"
import {
  balances,
  confirmedTx,
  createBody,
  createParties,
  type EscrowEnv,
  escrowState,
  freshEscrowId,
  helper,
  networkFee,
  type Parties,
  startEscrowEnv,
  stopEscrowEnv
} from "./escrowFixture.js"

let env: EscrowEnv

beforeAll(async () => {
  env = await startEscrowEnv()
}, 60_000)
afterAll(async () => stopEscrowEnv(env))

/** Creates and accepts an escrow, then the counterparty disputes it. */
const disputedEscrow = async (parties: Parties, amount: number, feeBps: number) => {
  const id = freshEscrowId()
  confirmedTx(await helper(env, "create", createBody(parties, id, amount, { feeBps })))
  confirmedTx(await helper(env, `${id}/accept`, { walletId: parties.counterparty.id, creator: parties.creator.publicKey }))
  confirmedTx(await helper(env, `${id}/dispute`, { walletId: parties.counterparty.id, escrowNumericId: id, creator: parties.creator.publicKey }))
  expect((await escrowState(env, parties.creator.publicKey, id)).status).toBe("disputed")
  return id
}

describe("escrow disputes", () => {
  it("resolves for the counterparty: amount - fee to the counterparty, the fee to the fee recipient", async () => {
    const parties = await createParties(env)
    const { creator, counterparty, arbiter, feeRecipient } = parties
    const amount = 600_000_000
    const id = await disputedEscrow(parties, amount, 500)
    const fee = (amount * 500) / 10_000

    const watched = [creator.publicKey, counterparty.publicKey, feeRecipient.publicKey, arbiter.publicKey]
    const before = await balances(env, watched)
    // counterparty omitted: the helper reads it from the escrow's state
    const resolved = await helper(env, `${id}/resolve`, { walletId: arbiter.id, creator: creator.publicKey, winnerIsCreator: false })
    const tx = confirmedTx(resolved)
    expect(resolved.body.data).toMatchObject({ type: "resolve_dispute", intent: { decision: "release", counterparty: counterparty.publicKey } })
    const after = await balances(env, watched)
    expect(after[0] - before[0]).toBe(0)
    expect(after[1] - before[1]).toBe(amount - fee)
    expect(after[2] - before[2]).toBe(fee)
    expect(before[3] - after[3]).toBe(await networkFee(env, tx.signature))
    expect(await escrowState(env, creator.publicKey, id)).toMatchObject({ status: "resolved", resolution: "release" })

    const audit = await makeClient(env.service.baseUrl).audit.list({ query: { escrowId: id, eventType: "escrow.DisputeResolved" } })
    expect(audit.body.data.events).toHaveLength(1)
    expect(audit.body.data.events[0].metadata).toMatchObject({ decision: "release", toCounterparty: String(amount - fee), fee: String(fee), toCreator: "0" })
    const records = await api<ReadonlyArray<WalletEscrow>>(env.service.baseUrl, "GET", `/api/v1/wallets/${arbiter.id}/escrows`)
    expect(records.body.data.find((r) => r.escrowId === id)).toMatchObject({ state: "resolve_dispute", status: "resolved", resolution: "release" })
  }, 60_000)

  it("resolves for the creator: the whole amount back to the creator, no fee", async () => {
    const parties = await createParties(env)
    const { creator, counterparty, arbiter, feeRecipient } = parties
    const amount = 700_000_000
    const id = await disputedEscrow(parties, amount, 500)

    const watched = [creator.publicKey, counterparty.publicKey, feeRecipient.publicKey]
    const before = await balances(env, watched)
    const resolved = await helper(env, `${id}/resolve`, {
      walletId: arbiter.id, escrowNumericId: id, creator: creator.publicKey, counterparty: counterparty.publicKey, winnerIsCreator: true
    })
    confirmedTx(resolved)
    expect(resolved.body.data.intent.decision).toBe("refund")
    const after = await balances(env, watched)
    expect(after.map((b, i) => b - before[i])).toEqual([amount, 0, 0])
    expect(await escrowState(env, creator.publicKey, id)).toMatchObject({ status: "resolved", resolution: "refund", remaining: 0n })
  }, 60_000)

  it("refuses a resolve by anyone but the arbiter, readably", async () => {
    const parties = await createParties(env)
    const id = await disputedEscrow(parties, 300_000_000, 0)
    const refused = await helper(env, `${id}/resolve`, { walletId: parties.creator.id, creator: parties.creator.publicKey, winnerIsCreator: true })
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.body.error).toContain("only the arbiter can resolve this dispute")
    expect((await escrowState(env, parties.creator.publicKey, id)).status).toBe("disputed")
  }, 60_000)
})

describe("escrow refunds", () => {
  it("refuses the creator's refund before the deadline and refunds the whole amount after it", async () => {
    const parties = await createParties(env)
    const { creator } = parties
    const id = freshEscrowId()
    const amount = 250_000_000
    // The ledger's clock follows wall-clock time: a deadline a few seconds ahead passes while we wait.
    // 8 s: wide enough that the create and the early refund are answered before it on a loaded machine.
    const deadlineUnixSec = Math.floor(Date.now() / 1000) + 8
    confirmedTx(await helper(env, "create", createBody(parties, id, amount, { deadlineUnixSec })))

    const early = await helper(env, `${id}/refund`, { walletId: creator.id, creator: creator.publicKey })
    expect(early.body).toMatchObject({ status: "failure", failedAt: "build" })
    expect(early.body.error).toContain("the creator can refund an unaccepted escrow only after its deadline")

    while (Math.floor(Date.now() / 1000) <= deadlineUnixSec + 1) await new Promise((resolve) => setTimeout(resolve, 250))
    const [before] = await balances(env, [creator.publicKey])
    const refunded = confirmedTx(await helper(env, `${id}/refund`, { walletId: creator.id, creator: creator.publicKey }))
    const [after] = await balances(env, [creator.publicKey])
    expect(after - before).toBe(amount - (await networkFee(env, refunded.signature)))
    expect(await escrowState(env, creator.publicKey, id)).toMatchObject({ status: "refunded", remaining: 0n })
    const records = await api<ReadonlyArray<WalletEscrow>>(env.service.baseUrl, "GET", `/api/v1/wallets/${creator.id}/escrows`)
    expect(records.body.data.find((r) => r.escrowId === id)).toMatchObject({ state: "refund_escrow", status: "refunded", paidOut: amount })
  }, 60_000)
})
