/**
 * effect_bounds (issue 31 item 2), the pure evaluator: each bound against a simulated effect, at and
 * past its boundary; a what-if without a simulation judged on its own fields; the rule's strict schema
 * (unknown fields and bad values refused, naming the field); compatibility warnings; restrictiveness
 * for safe migrations.
 */
import { describe, expect, it } from "vitest"
import type { TransactionEffect } from "../../schemas/effect.js"
import { checkCompatibility } from "../../src/policy/compatibility.js"
import { compareRuleSets } from "../../src/policy/restrictiveness.js"
import { compileRule } from "../../src/policy/compileRules.js"
import { ADDR_A, ADDR_B, ADDR_C, USDC_MINT, decideWith } from "./fixtures.js"

const WALLET_KEY = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"
const TOKEN_ACCOUNT = "5ZWj7a1f8tWkjBESHKgrLmXshuXxqeY9SYcfbshpAqPG"

const effect = (overrides: Partial<TransactionEffect> = {}): TransactionEffect => ({
  wallet: WALLET_KEY,
  feePayer: WALLET_KEY,
  feeLamports: 5_000n,
  sol: { beforeLamports: 10_000_000n, afterLamports: 8_995_000n },
  solOutflowLamports: 1_005_000n,
  tokenChanges: [],
  tokenOutflows: [{ mint: USDC_MINT, amount: 2_000_000n }],
  recipients: [{ address: ADDR_A, lamports: 1_000_000n, tokens: [] }, { address: ADDR_B, lamports: 0n, tokens: [{ mint: USDC_MINT, amount: 2_000_000n }] }],
  controlChanges: [],
  closedAccounts: [],
  programs: [],
  instructions: [{ index: 0, programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", program: "Token Program", action: "approve", explained: true }],
  ...overrides
})

const judged = (rule: Record<string, unknown>, simulated: TransactionEffect) =>
  decideWith([{ type: "effect_bounds", ...rule }], { type: "sign_transaction", protocol: "wallet" }, { transaction: { effect: simulated } })

describe("effect_bounds against a simulated effect", () => {
  it("bounds the SOL the wallet loses, the fee included", () => {
    expect(judged({ maxSolOutflowLamports: 1_005_000 }, effect()).decision).toBe("allow")
    const over = judged({ maxSolOutflowLamports: 1_004_999 }, effect())
    expect(over.decision).toBe("deny")
    expect(over.reasons[0]).toContain("effect_bounds: the wallet would send 1005000 lamports (fee included), above maxSolOutflowLamports 1004999")
  })

  it("bounds each listed mint's outflow; an unlisted mint is not bounded", () => {
    expect(judged({ maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: "2000000" }] }, effect()).decision).toBe("allow")
    const over = judged({ maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: "1999999" }] }, effect())
    expect(over.reasons).toEqual([expect.stringContaining(`2000000 of mint ${USDC_MINT} would leave the wallet, above its maxAmount 1999999`)])
    expect(judged({ maxTokenOutflows: [{ mint: ADDR_C, maxAmount: "0" }] }, effect()).decision).toBe("allow")
  })

  it("lets only the allowed recipients gain value, naming each other one", () => {
    expect(judged({ allowedRecipients: [ADDR_A, ADDR_B] }, effect()).decision).toBe("allow")
    const denied = judged({ allowedRecipients: [ADDR_A] }, effect())
    expect(denied.decision).toBe("deny")
    expect(denied.reasons).toEqual([expect.stringContaining(`effect_bounds: ${ADDR_B} would receive value and is not in allowedRecipients`)])
  })

  it("forbids delegates (a revoke stays allowed), authority changes of any kind, and closes, naming the instruction", () => {
    const approve = effect({ controlChanges: [{ account: TOKEN_ACCOUNT, kind: "delegate", from: null, to: WALLET_KEY, instruction: { index: 0 } }] })
    const forbidden = judged({ forbidDelegates: true }, approve)
    expect(forbidden.decision).toBe("deny")
    expect(forbidden.reasons[0]).toContain(`effect_bounds (forbidDelegates): instruction 0 (Token Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: approve) would hand the delegate of the wallet's account ${TOKEN_ACCOUNT}`)
    const revoke = effect({ controlChanges: [{ account: TOKEN_ACCOUNT, kind: "delegate", from: ADDR_A, to: null }] })
    expect(judged({ forbidDelegates: true }, revoke).decision).toBe("allow")

    // giving a mint authority up (to nobody) passes the baseline; this bound refuses it
    const renounce = effect({ controlChanges: [{ account: ADDR_C, kind: "mint_authority", from: WALLET_KEY, to: null }] })
    expect(judged({}, renounce).decision).toBe("allow")
    expect(judged({ forbidAuthorityChanges: true }, renounce).reasons[0]).toContain(`effect_bounds (forbidAuthorityChanges): the transaction would hand the mint authority of the wallet's account ${ADDR_C} from ${WALLET_KEY} to nobody`)
    expect(judged({ forbidAuthorityChanges: true }, approve).decision).toBe("allow")

    const close = effect({ closedAccounts: [{ account: TOKEN_ACCOUNT, lamports: 2_039_280n, destination: WALLET_KEY, instruction: { index: 0 } }] })
    expect(judged({}, close).decision).toBe("allow")
    expect(judged({ forbidCloses: true }, close).reasons[0]).toContain(`effect_bounds (forbidCloses): instruction 0 (Token Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: approve) would close the wallet's account ${TOKEN_ACCOUNT}`)
  })

  it("keeps every violated bound's reason", () => {
    const all = judged({ maxSolOutflowLamports: 0, allowedRecipients: [], maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: 0 }] }, effect())
    expect(all.reasons).toHaveLength(4)
  })
})

describe("effect_bounds in a what-if (no simulation)", () => {
  const rule = { type: "effect_bounds", maxSolOutflowLamports: 1_000, allowedRecipients: [ADDR_A], maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: "50" }] }
  it("judges amountLamports as SOL to the destination", () => {
    expect(decideWith([rule], { amountLamports: 1_000n, destination: ADDR_A }).decision).toBe("allow")
    expect(decideWith([rule], { amountLamports: 1_001n, destination: ADDR_A }).decision).toBe("deny")
    expect(decideWith([rule], { amountLamports: 10n, destination: ADDR_B }).reasons[0]).toContain(`${ADDR_B} would receive value`)
  })
  it("judges amountLamports as base units of tokenMint when one is named", () => {
    expect(decideWith([rule], { amountLamports: 50n, tokenMint: USDC_MINT, destination: ADDR_A }).decision).toBe("allow")
    expect(decideWith([rule], { amountLamports: 51n, tokenMint: USDC_MINT, destination: ADDR_A }).reasons[0]).toContain(`51 of mint ${USDC_MINT}`)
  })
})

describe("effect_bounds schema, compatibility and restrictiveness", () => {
  it("refuses unknown fields and bad values, naming the field", () => {
    expect(compileRule({ type: "effect_bounds", maxSolOutflow: 5 }, "rules[0]")).toMatchObject({ ok: false, issues: [expect.stringContaining("rules[0].maxSolOutflow")] })
    expect(compileRule({ type: "effect_bounds", maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: "1", extra: 1 }] }, "rules[0]")).toMatchObject({ ok: false, issues: expect.arrayContaining([expect.stringContaining("rules[0].maxTokenOutflows[0].extra: unknown field")]) })
    expect(compileRule({ type: "effect_bounds", allowedRecipients: ["not base58!"] }, "rules[0]")).toMatchObject({ ok: false, issues: [expect.stringContaining("rules[0].allowedRecipients[0]")] })
    expect(compileRule({ type: "effect_bounds", maxSolOutflowLamports: -1 }, "rules[0]")).toMatchObject({ ok: false, issues: [expect.stringContaining("rules[0].maxSolOutflowLamports")] })
    expect(compileRule({ type: "effect_bounds", forbidCloses: "yes" }, "rules[0]")).toMatchObject({ ok: false, issues: [expect.stringContaining("rules[0].forbidCloses")] })
    expect(compileRule({ type: "effect_bounds", maxSolOutflowLamports: "1000000", forbidCloses: true }, "rules[0]")).toMatchObject({ ok: true })
  })

  it("warns about a rule with no bound and an empty recipient list", () => {
    expect(checkCompatibility([{ type: "effect_bounds" }]).warnings).toEqual(["rules[0] effect_bounds: sets no bound and has no effect"])
    expect(checkCompatibility([{ type: "effect_bounds", forbidDelegates: false }]).warnings).toHaveLength(1)
    expect(checkCompatibility([{ type: "effect_bounds", allowedRecipients: [] }]).warnings[0]).toContain("allowedRecipients is empty")
    expect(checkCompatibility([{ type: "effect_bounds", forbidCloses: true }])).toEqual({ compatible: true, warnings: [], errors: [] })
  })

  it("is at least as restrictive only when no bound is raised, dropped or widened", () => {
    const current = { type: "effect_bounds" as const, maxSolOutflowLamports: 1_000n, maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: 10n }], allowedRecipients: [ADDR_A, ADDR_B], forbidCloses: true }
    expect(compareRuleSets([current], [{ ...current, maxSolOutflowLamports: 900n, allowedRecipients: [ADDR_A], forbidDelegates: true }]).moreRestrictiveOrEqual).toBe(true)
    expect(compareRuleSets([current], [{ ...current, maxSolOutflowLamports: 1_001n }]).differences).toEqual(["rules[0] effect_bounds: maxSolOutflowLamports raised from 1000 to 1001"])
    expect(compareRuleSets([current], [{ ...current, maxTokenOutflows: [] }]).differences).toEqual([`rules[0] effect_bounds: maxTokenOutflows no longer bounds ${USDC_MINT}`])
    expect(compareRuleSets([current], [{ ...current, maxTokenOutflows: [{ mint: USDC_MINT, maxAmount: 11n }] }]).differences[0]).toContain("raised for")
    expect(compareRuleSets([current], [{ ...current, allowedRecipients: [ADDR_A, ADDR_C] }]).differences).toEqual([`rules[0] effect_bounds: allowedRecipients adds ${ADDR_C}`])
    expect(compareRuleSets([current], [{ ...current, forbidCloses: false }]).differences).toEqual(["rules[0] effect_bounds: forbidCloses dropped"])
  })
})
