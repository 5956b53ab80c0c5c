/** The SDK's types are the contract's: the committed sdk/src/generated.ts is what scripts/sdkTypes.ts makes now. */
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { generateSdkTypes, SDK_TYPES_FILE } from "../../scripts/sdkTypes.js"

describe("sdk/src/generated.ts", () => {
  it("is up to date with schemas/ (else run npm run sdk:generate)", () => {
    expect(fs.readFileSync(SDK_TYPES_FILE, "utf8")).toBe(generateSdkTypes())
  })

  it("types every intent payload, with no open record where a payload's fields are known", () => {
    const text = generateSdkTypes()
    expect(text).toContain("readonly transfer_sol: {\n    readonly destination: string\n    readonly lamports: number | string\n  }")
    expect(text).toContain("readonly query_positions: Record<string, never>")
    expect(text).toMatch(/readonly paper_trade: \{ readonly \[T in Exclude<TransactionType, "paper_trade">\]/)
  })
})
