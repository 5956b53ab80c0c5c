import { describe, expect, it } from "vitest"
import { planMigration } from "../../src/policy/migration.js"

const strict = [{ type: "max_slippage", maxBps: 50 }]
const loose = [{ type: "max_slippage", maxBps: 500 }]

describe("planMigration", () => {
  it.each([
    { name: "safe to a stricter version", current: loose, target: strict, mode: "safe", proceed: true },
    { name: "safe to a looser version", current: strict, target: loose, mode: "safe", proceed: false },
    { name: "force to a looser version", current: strict, target: loose, mode: "force", proceed: true },
    { name: "dry_run never applies", current: loose, target: strict, mode: "dry_run", proceed: false },
    { name: "force to an undecodable version", current: strict, target: [{ type: "max_slippage" }], mode: "force", proceed: false },
    { name: "safe away from an undecodable current rule", current: [{ type: "nope" }], target: strict, mode: "safe", proceed: false }
  ] as const)("$name -> proceed $proceed", ({ current, target, mode, proceed }) => {
    expect(planMigration(current, target, mode).proceed).toBe(proceed)
  })

  it("reports why a safe migration is refused", () => {
    const plan = planMigration(strict, loose, "safe")
    expect(plan).toMatchObject({ moreRestrictiveOrEqual: false, differences: ["rules[0] max_slippage: maxBps raised from 50 to 500"], errors: [] })
  })
})
