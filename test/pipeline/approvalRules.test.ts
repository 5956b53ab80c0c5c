/**
 * The pure rules of approvals (issue 31): amounts in whole units, when a rebuilt transaction's effect still
 * equals the approved one (within the tolerance), and how a quorum counts distinct operators.
 */
import { describe, expect, it } from "vitest"
import { assetAmount, inUnits, SOL } from "../../src/pipeline/approvals/assets.js"
import { approvedAlreadyBy, openApproval, recordApproval, rejectedAlreadyBy } from "../../src/pipeline/approvals/approvalRecord.js"
import { type ApprovalPreview, effectDifference, previewHash } from "../../src/pipeline/approvals/preview.js"

const USDC = { symbol: "USDC", mint: "Usdc111111111111111111111111111111111111111", decimals: 6 }
const transfer = { index: 2, programId: "11111111111111111111111111111111", program: "System Program", action: "transfer", description: "Transfer", amounts: [], counterparties: ["Dest1111"] }
const budget = (price: number) => ({ index: 0, programId: "ComputeBudget111111111111111111111111111111", program: "Compute Budget", action: "set priority fee", description: `Pay ${price}`, amounts: [], counterparties: [] })

const preview = (changes: { sol?: bigint; usdc?: bigint }, extra: Partial<ApprovalPreview> = {}): ApprovalPreview => ({
  version: 1, summary: "Transfer", wallet: "Wallet111", type: "transfer_sol", protocol: "system-program",
  instructions: [budget(2000), transfer],
  balanceChanges: [...(changes.sol === undefined ? [] : [assetAmount(SOL, changes.sol)]), ...(changes.usdc === undefined ? [] : [assetAmount(USDC, changes.usdc)])],
  controls: [], fee: { amount: assetAmount(SOL, 5000n), paidBy: "wallet" }, counterparties: ["Dest1111"], newAccounts: [], riskTier: "low", reasons: ["approval requested"],
  simulation: { ok: true }, simulatedAt: "2026-01-01T00:00:00.000Z", ...extra
})

const tolerance = { lamports: 10_000n, varianceBps: 0 }

describe("amounts as people read them", () => {
  it("writes base units in whole units exactly, signs kept, trailing zeros dropped", () => {
    expect(inUnits(1_000_000n, 9)).toBe("0.001")
    expect(inUnits(-1_005_240n, 9)).toBe("-0.00100524")
    expect(inUnits(2_000_000n, 6)).toBe("2")
    expect(inUnits(123n, 0)).toBe("123")
    expect(assetAmount(USDC, -1_500_000n)).toMatchObject({ amount: "-1.5", display: "-1.5 USDC", baseUnits: "-1500000" })
    expect(assetAmount({ symbol: "token Abcd...wxyz", mint: "Abcd", decimals: null }, 7n).display).toBe("7 base units of token Abcd...wxyz")
  })
})

describe("whether a rebuilt transaction does what was approved", () => {
  it("equal within the SOL tolerance (fees move), and a moved priority fee instruction does not count", () => {
    const approved = preview({ sol: -1_005_000n })
    expect(effectDifference(approved, preview({ sol: -1_009_999n }, { instructions: [budget(9000), transfer] }), tolerance)).toBeUndefined()
    expect(effectDifference(approved, preview({ sol: -1_015_001n }), tolerance)).toMatch(/SOL change would be -0.001015001 SOL instead of the approved -0.001005 SOL/)
  })

  it("a token change must be exact unless the protocol allows a variance", () => {
    const approved = preview({ sol: -5000n, usdc: 2_000_000n })
    expect(effectDifference(approved, preview({ sol: -5000n, usdc: 1_999_999n }), tolerance)).toMatch(/USDC change would be 1.999999 USDC instead of the approved 2 USDC/)
    expect(effectDifference(approved, preview({ sol: -5000n, usdc: 1_990_000n }), { ...tolerance, varianceBps: 50 })).toBeUndefined()
    expect(effectDifference(approved, preview({ sol: -5000n, usdc: 1_980_000n }), { ...tolerance, varianceBps: 50 })).toBeDefined()
  })

  it("an asset that appears or disappears, other instructions, handovers or recipients, or a failing simulation differ", () => {
    const approved = preview({ sol: -5000n })
    expect(effectDifference(approved, preview({ sol: -5000n, usdc: -1n }), tolerance)).toMatch(/USDC change would be -0.000001 USDC instead of the approved nothing/)
    expect(effectDifference(approved, preview({ sol: -5000n }, { instructions: [budget(2000), { ...transfer, counterparties: ["Other111"] }] }), tolerance)).toMatch(/instructions or counterparties differ/)
    expect(effectDifference(approved, preview({ sol: -5000n }, { controls: ["delegate of this wallet's USDC account: none -> Thief111"] }), tolerance)).toMatch(/hands over or closes/)
    expect(effectDifference(approved, preview({ sol: -5000n }, { counterparties: ["Dest1111", "Extra111"] }), tolerance)).toMatch(/who receives value/)
    expect(effectDifference(approved, preview({}, { simulation: { ok: false, error: "BlockhashNotFound" } }), tolerance)).toMatch(/simulation now fails: BlockhashNotFound/)
  })
})

describe("accounts a build creates under fresh keys", () => {
  it("compare by their place, not their address: a rebuilt create_mint with another mint address does what was approved", () => {
    const create = (mint: string) => preview({ sol: -1_466_000n }, {
      instructions: [budget(2000), { ...transfer, action: "create account", counterparties: [mint, "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"] }],
      counterparties: [mint], newAccounts: [mint], controls: [`mint authority of ${mint}: none -> Wallet111`]
    })
    expect(effectDifference(create("MintA111"), create("MintB222"), tolerance)).toBeUndefined()
    // an address that is not new keeps its identity
    expect(effectDifference(create("MintA111"), preview({ sol: -1_466_000n }, { ...create("MintB222"), newAccounts: [] }), tolerance)).toBeDefined()
  })
})

describe("a quorum", () => {
  const gate = openApproval({ now: new Date("2026-01-01T00:00:00Z"), ttlMs: 86_400_000, approvalsRequired: 2, preview: preview({ sol: -5000n }), previewHash: previewHash(preview({ sol: -5000n })) })

  it("opens pending for the ttl with no approvals and the preview's hash", () => {
    expect(gate).toMatchObject({ status: "pending", expiresAt: "2026-01-02T00:00:00.000Z", approvalsRequired: 2, approvals: [], round: 1 })
  })

  it("records distinct operators, refuses the same one twice, and releases at the Nth", () => {
    const first = recordApproval({ ...gate }, "alice", new Date("2026-01-01T01:00:00Z"), 1)
    expect(first).toMatchObject({ kind: "recorded", approvals: 1, required: 2 })
    if (first.kind !== "recorded") throw new Error("expected recorded")
    expect(recordApproval({ ...first.approval }, "alice", new Date(), 1)).toMatchObject({ kind: "duplicate", approvals: 1, required: 2 })
    const second = recordApproval({ ...first.approval }, "bob", new Date("2026-01-01T02:00:00Z"), 1)
    expect(second).toMatchObject({ kind: "released", approvals: 2, approval: { status: "approved", decidedBy: "bob", decidedAt: "2026-01-01T02:00:00.000Z" } })
  })

  it("needs the larger of the gate's figure and the wallet's current one; a gate from before quorums needs one", () => {
    expect(recordApproval({ ...gate }, "alice", new Date(), 3)).toMatchObject({ kind: "recorded", required: 3 })
    expect(recordApproval({ status: "pending", expiresAt: "2026-01-02T00:00:00.000Z" }, "alice", new Date(), 1)).toMatchObject({ kind: "released" })
  })

  it("knows a repeated approve of what the operator approved: this round's preview, while it waits or once released", () => {
    const first = recordApproval({ ...gate }, "alice", new Date(), 1)
    if (first.kind !== "recorded") throw new Error("expected recorded")
    expect(approvedAlreadyBy({ ...first.approval }, "alice", undefined)).toBe(true)
    expect(approvedAlreadyBy({ ...first.approval }, "alice", first.approval.previewHash)).toBe(true)
    expect(approvedAlreadyBy({ ...first.approval }, "alice", "another")).toBe(false)
    expect(approvedAlreadyBy({ ...first.approval }, "bob", undefined)).toBe(false)
    const released = recordApproval({ ...first.approval }, "bob", new Date(), 1)
    if (released.kind !== "released") throw new Error("expected released")
    expect(["alice", "bob"].map((by) => approvedAlreadyBy({ ...released.approval }, by, undefined))).toEqual([true, true])
    // The next round (a changed effect) shows another preview: an approval of the last one does not carry over.
    const next = openApproval({ now: new Date(), ttlMs: 1000, approvalsRequired: 2, preview: preview({ sol: -2n }), previewHash: "next", round: 2 })
    expect(approvedAlreadyBy({ ...next, approvals: released.approval.approvals }, "alice", undefined)).toBe(false)
    expect(approvedAlreadyBy({ ...released.approval, status: "rejected" }, "alice", undefined)).toBe(false)
    expect(approvedAlreadyBy({ ...released.approval, status: "expired" }, "alice", undefined)).toBe(false)
    // A gate from before quorums kept no list: its approver is who decided.
    expect(approvedAlreadyBy({ status: "approved", decidedBy: "alice" }, "alice", undefined)).toBe(true)
    expect(approvedAlreadyBy({ status: "approved", decidedBy: "alice" }, "bob", undefined)).toBe(false)
  })

  it("knows a repeated reject by who rejected it", () => {
    expect(rejectedAlreadyBy({ ...gate, status: "rejected", decidedBy: "bob" }, "bob")).toBe(true)
    expect(rejectedAlreadyBy({ ...gate, status: "rejected", decidedBy: "bob" }, "alice")).toBe(false)
    expect(rejectedAlreadyBy({ ...gate, status: "expired" }, "bob")).toBe(false)
  })
})
