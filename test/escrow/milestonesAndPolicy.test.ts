/**
 * The remaining escrow paths over HTTP on the real ledger: milestone escrows through POST
 * /transactions (create_milestone_escrow, release_milestone), policy applied to an escrow create
 * (its spend is amount + the escrow account's rent), a payout that would leave a new fee recipient
 * below rent refused at build, and helper bodies checked against the path and the signing wallet.
 */
import { Keypair } from "@solana/web3.js"
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
  escrowTx,
  freshEscrowId,
  helper,
  startEscrowEnv,
  stopEscrowEnv
} from "./escrowFixture.js"

let env: EscrowEnv

beforeAll(async () => {
  env = await startEscrowEnv()
}, 60_000)
afterAll(async () => stopEscrowEnv(env))

describe("milestone escrows", () => {
  it("releases milestones one by one, each less its fee, and completes after the last", async () => {
    const parties = await createParties(env)
    const { creator, counterparty, feeRecipient } = parties
    const id = freshEscrowId()
    const { walletId: _creatorWallet, amount: _amount, ...fields } = createBody(parties, id, 1)
    const created = await escrowTx(env, creator.id, "create_milestone_escrow", {
      ...fields, feeBps: 1000, milestones: [{ amount: "300000000", description: "design" }, { amount: 700_000_000 }]
    })
    confirmedTx(created)
    expect(await escrowState(env, creator.publicKey, id)).toMatchObject({ amount: 1_000_000_000n, status: "created" })
    confirmedTx(await escrowTx(env, counterparty.id, "accept_escrow", { escrowNumericId: id, creator: creator.publicKey }))

    const release = (milestoneIndex: number) =>
      escrowTx(env, creator.id, "release_milestone", {
        escrowNumericId: id, creator: creator.publicKey, counterparty: counterparty.publicKey, feeRecipient: feeRecipient.publicKey, milestoneIndex
      })
    const watched = [counterparty.publicKey, feeRecipient.publicKey]
    const before = await balances(env, watched)
    confirmedTx(await release(1))
    const afterSecond = await balances(env, watched)
    expect(afterSecond.map((b, i) => b - before[i])).toEqual([630_000_000, 70_000_000])
    expect((await escrowState(env, creator.publicKey, id)).status).toBe("accepted")

    const again = await release(1)
    expect(again.body.error).toContain("this milestone was already released")
    confirmedTx(await release(0))
    const afterFirst = await balances(env, watched)
    expect(afterFirst.map((b, i) => b - afterSecond[i])).toEqual([270_000_000, 30_000_000])
    expect(await escrowState(env, creator.publicKey, id)).toMatchObject({ status: "completed", remaining: 0n })

    const records = await api<ReadonlyArray<WalletEscrow>>(env.service.baseUrl, "GET", `/api/v1/wallets/${creator.id}/escrows`)
    expect(records.body.data.find((r) => r.escrowId === id)).toMatchObject({
      state: "release_milestone", status: "completed", milestoneCount: 2, milestonesReleased: 2, amount: 1_000_000_000
    })
    const audit = await makeClient(env.service.baseUrl).audit.list({ query: { escrowId: id, eventType: "escrow.EscrowReleased" } })
    expect(audit.body.data.events.map((e) => e.metadata.milestoneIndex as number).sort()).toEqual([0, 1])
  }, 60_000)
})

describe("escrow and policy", () => {
  it("counts amount + escrow rent against a spending limit and denies above it", async () => {
    const parties = await createParties(env)
    const amount = 500_000_000
    const policy = await makeClient(env.service.baseUrl).policies.create({ body: {
      walletId: parties.creator.id, name: "cap", rules: [{ type: "spending_limit", maxLamportsPerTx: amount + env.escrowRent - 1 }]
    } })
    expect(policy.status).toBe(201)
    const [before] = await balances(env, [parties.creator.publicKey])
    const denied = await helper(env, "create", createBody(parties, freshEscrowId(), amount))
    expect(denied.status).toBe(403)
    expect(denied.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(await balances(env, [parties.creator.publicKey])).toEqual([before])

    // At exactly the limit the create goes through.
    await makeClient(env.service.baseUrl).policies.update({ params: { policyId: policy.body.data.id }, body: { rules: [{ type: "spending_limit", maxLamportsPerTx: amount + env.escrowRent }] } })
    confirmedTx(await helper(env, "create", createBody(parties, freshEscrowId(), amount)))
  }, 60_000)
})

describe("escrow build refusals", () => {
  it("refuses a release whose fee would leave a new fee recipient below rent, and moves nothing", async () => {
    const parties = await createParties(env)
    const newFeeRecipient = Keypair.generate().publicKey.toBase58()
    const id = freshEscrowId()
    // 1% of 50,000,000 = 500,000 lamports: below the ~890,880 a new system account needs
    confirmedTx(await helper(env, "create", createBody(parties, id, 50_000_000, { feeBps: 100, feeRecipient: newFeeRecipient })))
    confirmedTx(await helper(env, `${id}/accept`, { walletId: parties.counterparty.id, creator: parties.creator.publicKey }))
    const [before] = await balances(env, [parties.creator.publicKey])
    const refused = await helper(env, `${id}/release`, {
      walletId: parties.creator.id, creator: parties.creator.publicKey, counterparty: parties.counterparty.publicKey, feeRecipient: newFeeRecipient
    })
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.body.error).toContain(`fee recipient payout: transfer of 500000 lamports to unfunded destination ${newFeeRecipient} is below the rent-exempt minimum`)
    expect(await balances(env, [parties.creator.publicKey])).toEqual([before])
  }, 60_000)

  it("refuses helper bodies that disagree with the path or the signing wallet, and unknown escrows", async () => {
    const parties = await createParties(env)
    const id = freshEscrowId()
    const mismatch = await helper(env, `${id}/accept`, { walletId: parties.counterparty.id, escrowNumericId: "7", creator: parties.creator.publicKey })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.error).toContain("escrowNumericId")
    const wrongSigner = await helper(env, "create", { ...createBody(parties, id, 1_000_000), wallet: parties.arbiter.publicKey })
    expect(wrongSigner.status).toBe(400)
    expect(wrongSigner.body.error).toContain("wallet:")
    const notCreator = await helper(env, "create", { ...createBody(parties, id, 1_000_000), walletId: parties.arbiter.id })
    expect(notCreator.body.error).toContain("intent.creator must be the signing wallet")
    const missingField = await helper(env, "create", { ...createBody(parties, id, 1_000_000), counterparty: undefined })
    expect(missingField.status).toBe(400)
    expect(missingField.body.error).toMatch(/^counterparty/)
    const unknown = await helper(env, `${id}/accept`, { walletId: parties.counterparty.id, creator: parties.creator.publicKey })
    expect(unknown.body.error).toContain(`escrow ${id} of creator ${parties.creator.publicKey}`)
    expect(unknown.body.error).toContain("does not exist on the ledger")
    const unknownResolve = await helper(env, `${id}/resolve`, { walletId: parties.arbiter.id, creator: parties.creator.publicKey, winnerIsCreator: true })
    expect(unknownResolve.status).toBe(404)
  }, 60_000)
})
