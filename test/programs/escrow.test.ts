// The escrow program in litesvm: every operation, its event, and exact lamport accounting.
import { describe, expect, it } from "vitest"
import { AMOUNT, DEADLINE, EscrowFixture, FEE_BPS, feeOf, START_TIME } from "./escrowFixture.js"

describe("escrow program: create and accept", () => {
  it("creates the escrow PDA holding rent plus the amount, paid by the creator", () => {
    const f = new EscrowFixture()
    const creatorBefore = f.ledger.balance(f.creator.publicKey)
    const { id, outcome } = f.create()
    expect(outcome.ok).toBe(true)
    expect(f.ledger.balance(f.address(id))).toBe(f.rent() + AMOUNT)
    expect(f.ledger.balance(f.creator.publicKey)).toBe(creatorBefore - f.rent() - AMOUNT)

    const state = f.state(id)
    expect(state).toMatchObject({
      status: "created",
      escrowId: id,
      amount: AMOUNT,
      paidOut: 0n,
      remaining: AMOUNT,
      feeBps: FEE_BPS,
      deadlineUnixSec: DEADLINE,
      createdAtUnixSec: START_TIME,
      resolution: null,
      termsHash: "07".repeat(32),
      milestones: []
    })
    expect(state.creator.equals(f.creator.publicKey)).toBe(true)
    expect(state.counterparty.equals(f.counterparty.publicKey)).toBe(true)
    expect(state.arbiter.equals(f.arbiter.publicKey)).toBe(true)
    expect(state.feeRecipient.equals(f.feeRecipient)).toBe(true)

    expect(outcome.events).toHaveLength(1)
    const [event] = outcome.events
    expect(event.name).toBe("EscrowCreated")
    if (event.name !== "EscrowCreated") return
    expect(event.fields).toMatchObject({ escrowId: id, amount: AMOUNT, feeBps: FEE_BPS, deadlineUnixSec: DEADLINE, milestoneCount: 0 })
    expect(event.fields.escrow.equals(f.address(id))).toBe(true)
    expect(event.fields.counterparty.equals(f.counterparty.publicKey)).toBe(true)
  })

  it("lets only the counterparty accept, and logs EscrowAccepted", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    const outcome = f.accept(id)
    expect(outcome.ok).toBe(true)
    expect(f.state(id).status).toBe("accepted")
    expect(outcome.events.map((e) => e.name)).toEqual(["EscrowAccepted"])
    expect(f.ledger.balance(f.address(id))).toBe(f.rent() + AMOUNT)
  })
})

describe("escrow program: release", () => {
  for (const who of ["creator", "arbiter"] as const) {
    it(`pays the counterparty the amount minus the fee when the ${who} releases; the fee recipient gets the fee`, () => {
      const f = new EscrowFixture()
      const { id } = f.create()
      f.accept(id)
      const before = f.balances(id)
      const totalBefore = f.total(id)
      const outcome = f.release(id, f[who])
      expect(outcome.ok).toBe(true)
      const after = f.balances(id)
      const fee = feeOf(AMOUNT)
      expect(after.counterparty - before.counterparty).toBe(AMOUNT - fee)
      expect(after.feeRecipient - before.feeRecipient).toBe(fee)
      expect(after.escrow).toBe(f.rent())
      expect(f.total(id)).toBe(totalBefore)
      expect(f.state(id)).toMatchObject({ status: "completed", paidOut: AMOUNT, remaining: 0n })
      const [event] = outcome.events
      expect(event.name).toBe("EscrowReleased")
      if (event.name !== "EscrowReleased") return
      expect(event.fields).toMatchObject({ toCounterparty: AMOUNT - fee, fee, milestoneIndex: null, status: "completed" })
      expect(event.fields.by.equals(f[who].publicKey)).toBe(true)
    })
  }

  it("refuses a second release and a refund after release", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.accept(id)
    expect(f.release(id).ok).toBe(true)
    const total = f.total(id)
    expect(f.release(id).customError).toBe(6012)
    expect(f.release(id, f.arbiter).customError).toBe(6012)
    expect(f.refund(id, f.arbiter).customError).toBe(6012)
    expect(f.total(id)).toBe(total)
    expect(f.ledger.balance(f.address(id))).toBe(f.rent())
  })

  it("rounds the fee down and pays no fee at 0 bps", () => {
    const f = new EscrowFixture()
    const odd = 1_000_000_007n
    const { id } = f.create({ amount: odd, feeBps: 1000 })
    f.accept(id)
    const before = f.balances(id)
    f.release(id)
    const after = f.balances(id)
    expect(after.feeRecipient - before.feeRecipient).toBe(100_000_000n)
    expect(after.counterparty - before.counterparty).toBe(odd - 100_000_000n)

    const { id: free } = f.create({ feeBps: 0 })
    f.accept(free)
    const freeBefore = f.balances(free)
    f.release(free)
    expect(f.balances(free).counterparty - freeBefore.counterparty).toBe(AMOUNT)
    expect(f.balances(free).feeRecipient).toBe(freeBefore.feeRecipient)
  })
})

describe("escrow program: refund and deadline", () => {
  it("lets the creator refund an unaccepted escrow only after the deadline", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    expect(f.refund(id).customError).toBe(6006)
    f.ledger.setUnixTimestamp(DEADLINE)
    expect(f.refund(id).customError).toBe(6006) // at the deadline it has not passed yet
    f.ledger.setUnixTimestamp(DEADLINE + 1n)
    const before = f.balances(id)
    const outcome = f.refund(id)
    expect(outcome.ok).toBe(true)
    expect(f.balances(id).creator - before.creator).toBe(AMOUNT)
    expect(f.balances(id).escrow).toBe(f.rent())
    expect(f.state(id)).toMatchObject({ status: "refunded", paidOut: AMOUNT, remaining: 0n })
    const [event] = outcome.events
    expect(event).toMatchObject({ name: "EscrowRefunded", fields: { refunded: AMOUNT } })
  })

  it("refuses acceptance after the deadline", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.ledger.setUnixTimestamp(DEADLINE + 1n)
    expect(f.accept(id).customError).toBe(6008)
    expect(f.state(id).status).toBe("created")
  })

  it("keeps an accepted escrow from the creator's refund even after the deadline; the arbiter may refund", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.accept(id)
    f.ledger.setUnixTimestamp(DEADLINE + 100n)
    expect(f.refund(id).customError).toBe(6007)
    const before = f.balances(id)
    expect(f.refund(id, f.arbiter).ok).toBe(true)
    expect(f.balances(id).creator - before.creator).toBe(AMOUNT)
    expect(f.balances(id).arbiter).toBe(before.arbiter)
  })

  it("lets the arbiter refund before the deadline, and nothing is released after a refund", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    expect(f.refund(id, f.arbiter).ok).toBe(true)
    expect(f.accept(id).customError).toBe(6012)
    expect(f.release(id).customError).toBe(6012)
    expect(f.refund(id, f.arbiter).customError).toBe(6012)
    expect(f.ledger.balance(f.address(id))).toBe(f.rent())
  })
})

describe("escrow program: dispute and resolution", () => {
  it("lets creator or counterparty dispute; a disputed escrow is settled only by the arbiter", () => {
    for (const who of ["creator", "counterparty"] as const) {
      const f = new EscrowFixture()
      const { id } = f.create()
      f.accept(id)
      const outcome = f.dispute(id, f[who])
      expect(outcome.ok).toBe(true)
      expect(f.state(id).status).toBe("disputed")
      expect(outcome.events[0]).toMatchObject({ name: "EscrowDisputed" })
      expect(f.release(id).customError).toBe(6037)
      expect(f.refund(id, f.arbiter).customError).toBe(6037)
      expect(f.dispute(id, f.counterparty).customError).toBe(6037)
    }
  })

  it("resolves with release: counterparty gets amount minus fee, fee recipient the fee", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.accept(id)
    f.dispute(id, f.counterparty)
    const before = f.balances(id)
    const total = f.total(id)
    const outcome = f.resolve(id, "release")
    expect(outcome.ok).toBe(true)
    const fee = feeOf(AMOUNT)
    expect(f.balances(id).counterparty - before.counterparty).toBe(AMOUNT - fee)
    expect(f.balances(id).feeRecipient - before.feeRecipient).toBe(fee)
    expect(f.balances(id).escrow).toBe(f.rent())
    expect(f.total(id)).toBe(total)
    expect(f.state(id)).toMatchObject({ status: "resolved", resolution: "release", remaining: 0n })
    expect(outcome.events[0]).toMatchObject({ name: "DisputeResolved", fields: { decision: "release", toCounterparty: AMOUNT - fee, fee, toCreator: 0n } })
    expect(f.release(id).customError).toBe(6012)
    expect(f.resolve(id, "refund").customError).toBe(6012)
  })

  it("resolves with refund: the creator gets the whole amount back", () => {
    const f = new EscrowFixture()
    const { id } = f.create()
    f.accept(id)
    f.dispute(id)
    const before = f.balances(id)
    const outcome = f.resolve(id, "refund")
    expect(outcome.ok).toBe(true)
    expect(f.balances(id).creator - before.creator).toBe(AMOUNT)
    expect(f.balances(id).counterparty).toBe(before.counterparty)
    expect(f.state(id)).toMatchObject({ status: "resolved", resolution: "refund" })
    expect(outcome.events[0]).toMatchObject({ name: "DisputeResolved", fields: { decision: "refund", toCreator: AMOUNT, fee: 0n } })
  })
})
