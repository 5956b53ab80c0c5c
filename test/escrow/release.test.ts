/**
 * Escrow through the service over HTTP on a ledger running programs/dist/escrow.so: create, accept,
 * release with the exact fee split (counterparty amount - fee, fee recipient fee, creator amount + rent
 * + network fee); the escrow record and the ledger events as audit events filterable by escrowId; an
 * unauthorized release fails with the program's readable message and moves nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import type { WalletEscrow } from "../support/undeclaredAnswers.js"
import { ADMIN_KEY, api } from "../support/service.js"
import {
  balances,
  confirmedTx,
  createBody,
  createParties,
  type EscrowEnv,
  escrowAddressOf,
  escrowState,
  freshEscrowId,
  helper,
  networkFee,
  startEscrowEnv,
  stopEscrowEnv
} from "./escrowFixture.js"

let env: EscrowEnv

beforeAll(async () => {
  env = await startEscrowEnv()
}, 60_000)
afterAll(async () => stopEscrowEnv(env))

describe("escrow create, accept, release", () => {
  it("pays the counterparty amount - fee and the fee recipient the fee; records and audit events follow", async () => {
    const parties = await createParties(env)
    const { creator, counterparty, arbiter, feeRecipient } = parties
    const id = freshEscrowId()
    const amount = 1_000_000_000
    const feeBps = 250
    const fee = (amount * feeBps) / 10_000

    const [creatorBefore] = await balances(env, [creator.publicKey])
    const created = await helper(env, "create", createBody(parties, id, amount, { feeBps, terms: "deliver the report by friday" }))
    expect(created.status).toBe(201)
    const createTx = confirmedTx(created)
    expect(created.body.data).toMatchObject({ type: "create_escrow", protocol: "escrow", walletId: creator.id })
    const [creatorAfterCreate, escrowLamports] = await balances(env, [creator.publicKey, escrowAddressOf(creator.publicKey, id).toBase58()])
    expect(creatorBefore - creatorAfterCreate).toBe(amount + env.escrowRent + (await networkFee(env, createTx.signature)))
    expect(escrowLamports).toBe(amount + env.escrowRent)
    expect(await escrowState(env, creator.publicKey, id)).toMatchObject({ status: "created", feeBps, amount: BigInt(amount) })

    const accepted = confirmedTx(await helper(env, `${id}/accept`, { walletId: counterparty.id, creator: creator.publicKey }))
    expect(accepted.signature).toBeTruthy()
    expect((await escrowState(env, creator.publicKey, id)).status).toBe("accepted")

    const [counterpartyBefore, feeRecipientBefore, creatorBeforeRelease] = await balances(env, [counterparty.publicKey, feeRecipient.publicKey, creator.publicKey])
    const released = confirmedTx(
      await helper(env, `${id}/release`, { walletId: creator.id, creator: creator.publicKey, counterparty: counterparty.publicKey, feeRecipient: feeRecipient.publicKey })
    )
    const [counterpartyAfter, feeRecipientAfter, creatorAfterRelease, escrowAfter] = await balances(env, [
      counterparty.publicKey, feeRecipient.publicKey, creator.publicKey, escrowAddressOf(creator.publicKey, id).toBase58()
    ])
    expect(counterpartyAfter - counterpartyBefore).toBe(amount - fee)
    expect(feeRecipientAfter - feeRecipientBefore).toBe(fee)
    expect(creatorBeforeRelease - creatorAfterRelease).toBe(await networkFee(env, released.signature))
    expect(escrowAfter).toBe(env.escrowRent) // the account keeps its rent reserve and its history
    expect((await escrowState(env, creator.publicKey, id)).status).toBe("completed")

    // The escrow record: one per escrow, visible to every party's wallet, state = last operation.
    for (const party of [creator, counterparty, arbiter]) {
      const records = await api<ReadonlyArray<WalletEscrow>>(env.service.baseUrl, "GET", `/api/v1/wallets/${party.id}/escrows`)
      expect(records.status).toBe(200)
      const record = records.body.data.find((r) => r.escrowId === id)
      expect(record).toMatchObject({
        walletId: party.id, protocol: "escrow", escrowId: id, state: "release_escrow", status: "completed",
        counterparty: counterparty.publicKey, creator: creator.publicKey, arbiter: arbiter.publicKey,
        feeRecipient: feeRecipient.publicKey, amount, feeBps, paidOut: amount, lastTxId: released.id, lastSignature: released.signature,
        escrowAddress: escrowAddressOf(creator.publicKey, id).toBase58()
      })
    }

    // Tenancy: another tenant sees neither the wallet nor its escrows.
    const otherTenant = await api(env.service.baseUrl, "GET", `/api/v1/wallets/${creator.id}/escrows`, undefined, { "x-api-key": ADMIN_KEY, "x-tenant-id": "another-tenant" })
    expect(otherTenant.status).toBe(404)

    // One audit event per ledger event, filterable by escrowId.
    const audit = await makeClient(env.service.baseUrl).audit.list({ query: { escrowId: id, limit: "100" } })
    const events = audit.body.data.events
      .filter((e) => e.eventType.startsWith("escrow."))
    expect(events.map((e) => e.eventType).sort()).toEqual(["escrow.EscrowAccepted", "escrow.EscrowCreated", "escrow.EscrowReleased"])
    for (const e of events) expect(e).toMatchObject({ escrowId: id, protocol: "escrow" })
    expect(events.find((e) => e.eventType === "escrow.EscrowCreated")).toMatchObject({ txId: createTx.id, metadata: { amount: String(amount), feeBps } })
    expect(events.find((e) => e.eventType === "escrow.EscrowReleased")?.metadata).toMatchObject({
      toCounterparty: String(amount - fee), fee: String(fee), by: creator.publicKey, signature: released.signature
    })
  }, 60_000)

  it("refuses a release by the counterparty with the program's message and moves nothing", async () => {
    const parties = await createParties(env)
    const { creator, counterparty, feeRecipient } = parties
    const id = freshEscrowId()
    confirmedTx(await helper(env, "create", createBody(parties, id, 400_000_000, { feeBps: 100 })))
    confirmedTx(await helper(env, `${id}/accept`, { walletId: counterparty.id, creator: creator.publicKey }))

    const watched = [creator.publicKey, counterparty.publicKey, feeRecipient.publicKey, escrowAddressOf(creator.publicKey, id).toBase58()]
    const before = await balances(env, watched)
    const refused = await helper(env, `${id}/release`, {
      walletId: counterparty.id, creator: creator.publicKey, counterparty: counterparty.publicKey, feeRecipient: feeRecipient.publicKey
    })
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.body.data.status).toBe("failed")
    expect(refused.body.error).toContain("only the creator or the arbiter can release this escrow")
    expect(await balances(env, watched)).toEqual(before)
    expect((await escrowState(env, creator.publicKey, id)).status).toBe("accepted")
  }, 60_000)
})
