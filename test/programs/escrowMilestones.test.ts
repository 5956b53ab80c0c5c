// Milestone escrows: each milestone released once, releases summing exactly to the amount.
import { describe, expect, it } from "vitest"
import { EscrowFixture, feeOf } from "./escrowFixture.js"

const MILESTONES = [500_000_000n, 300_000_007n, 199_999_993n]
const TOTAL = MILESTONES.reduce((a, b) => a + b, 0n)

describe("escrow program: milestones", () => {
  it("creates a milestone escrow holding the sum of its milestones", () => {
    const f = new EscrowFixture()
    const { id, outcome } = f.createMilestones(MILESTONES)
    expect(outcome.ok).toBe(true)
    expect(f.ledger.balance(f.address(id))).toBe(f.rent() + TOTAL)
    expect(f.state(id).milestones).toEqual(MILESTONES.map((amount) => ({ amount, released: false })))
    expect(outcome.events[0]).toMatchObject({ name: "EscrowCreated", fields: { amount: TOTAL, milestoneCount: 3 } })
  })

  it("releases milestones one by one (creator or arbiter), each minus its fee, completing on the last", () => {
    const f = new EscrowFixture()
    const { id } = f.createMilestones(MILESTONES)
    expect(f.releaseMilestone(id, 0).customError).toBe(6010) // not accepted yet
    f.accept(id)
    const start = f.balances(id)
    const total = f.total(id)
    const order = [1, 0, 2]
    order.forEach((index, step) => {
      const before = f.balances(id)
      const outcome = f.releaseMilestone(id, index, step === 1 ? f.arbiter : f.creator)
      expect(outcome.ok).toBe(true)
      const fee = feeOf(MILESTONES[index])
      expect(f.balances(id).counterparty - before.counterparty).toBe(MILESTONES[index] - fee)
      expect(f.balances(id).feeRecipient - before.feeRecipient).toBe(fee)
      expect(f.total(id)).toBe(total)
      const last = step === order.length - 1
      expect(outcome.events[0]).toMatchObject({
        name: "EscrowReleased",
        fields: { milestoneIndex: index, toCounterparty: MILESTONES[index] - fee, fee, status: last ? "completed" : "accepted" }
      })
      if (!last) expect(f.releaseMilestone(id, index).customError).toBe(6026)
    })
    const end = f.balances(id)
    expect(end.counterparty - start.counterparty + (end.feeRecipient - start.feeRecipient)).toBe(TOTAL)
    expect(end.escrow).toBe(f.rent())
    expect(f.state(id)).toMatchObject({ status: "completed", paidOut: TOTAL, remaining: 0n })
    expect(f.state(id).milestones.every((m) => m.released)).toBe(true)
    expect(f.releaseMilestone(id, 0).customError).toBe(6012)
    expect(f.release(id).customError).toBe(6012)
  })

  it("refuses an index out of range, a stranger, and milestones on a simple escrow", () => {
    const f = new EscrowFixture()
    const { id } = f.createMilestones(MILESTONES)
    f.accept(id)
    expect(f.releaseMilestone(id, 3).customError).toBe(6025)
    expect(f.releaseMilestone(id, 0, f.counterparty).customError).toBe(6002)
    const { id: simple } = f.create()
    f.accept(simple)
    expect(f.releaseMilestone(simple, 0).customError).toBe(6027)
  })

  it("releases everything left with release_escrow after some milestones", () => {
    const f = new EscrowFixture()
    const { id } = f.createMilestones(MILESTONES)
    f.accept(id)
    f.releaseMilestone(id, 0)
    const before = f.balances(id)
    const left = TOTAL - MILESTONES[0]
    const outcome = f.release(id)
    expect(outcome.ok).toBe(true)
    expect(f.balances(id).counterparty - before.counterparty).toBe(left - feeOf(left))
    expect(f.balances(id).escrow).toBe(f.rent())
    expect(f.state(id).milestones.every((m) => m.released)).toBe(true)
  })

  it("refunds only what is still locked when the arbiter refunds after a milestone", () => {
    const f = new EscrowFixture()
    const { id } = f.createMilestones(MILESTONES)
    f.accept(id)
    f.releaseMilestone(id, 2)
    const before = f.balances(id)
    const outcome = f.refund(id, f.arbiter)
    expect(outcome.ok).toBe(true)
    expect(f.balances(id).creator - before.creator).toBe(TOTAL - MILESTONES[2])
    expect(f.balances(id).escrow).toBe(f.rent())
    expect(f.state(id)).toMatchObject({ status: "refunded", paidOut: TOTAL, remaining: 0n })
  })

  it("resolves a disputed milestone escrow over what is still locked", () => {
    const f = new EscrowFixture()
    const { id } = f.createMilestones(MILESTONES)
    f.accept(id)
    f.releaseMilestone(id, 0)
    f.dispute(id, f.counterparty)
    expect(f.releaseMilestone(id, 1).customError).toBe(6037)
    const before = f.balances(id)
    expect(f.resolve(id, "release").ok).toBe(true)
    const left = TOTAL - MILESTONES[0]
    expect(f.balances(id).counterparty - before.counterparty).toBe(left - feeOf(left))
    expect(f.balances(id).feeRecipient - before.feeRecipient).toBe(feeOf(left))
    expect(f.balances(id).escrow).toBe(f.rent())
  })
})
