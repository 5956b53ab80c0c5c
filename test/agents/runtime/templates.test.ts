import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { fillTemplates, type TemplateValues } from "../../../src/agents/runtime/templates.js"

const values: TemplateValues = {
  tick: 7,
  walletId: "11111111-2222-3333-4444-555555555555",
  balanceLamports: 18_446_744_073_709_551_615n,
  knownWalletAddresses: ["Addr0", "Addr1"]
}

describe("fillTemplates", () => {
  it("fills every variable in nested strings, leaving other values alone", () => {
    const filled = fillTemplates(
      {
        destination: "{{knownWallet1}}",
        lamports: "{{ balanceLamports }}",
        memo: "tick {{tick}} of {{walletId}} to {{knownWallet0}}",
        legs: [{ to: "{{knownWallet0}}" }, 3],
        flag: true,
        nothing: null
      },
      values
    )
    expect(filled).toEqual(
      Either.right({
        destination: "Addr1",
        lamports: "18446744073709551615",
        memo: "tick 7 of 11111111-2222-3333-4444-555555555555 to Addr0",
        legs: [{ to: "Addr0" }, 3],
        flag: true,
        nothing: null
      })
    )
  })

  it("refuses a known wallet the tick does not have", () => {
    const filled = fillTemplates({ destination: "{{knownWallet1}}" }, { ...values, knownWalletAddresses: ["Addr0"] })
    expect(Either.isLeft(filled) && filled.left.message).toContain("{{knownWallet1}} has no value")
  })

  it("refuses an unknown variable", () => {
    const filled = fillTemplates({ memo: "hi {{secretKey}}" }, values)
    expect(Either.isLeft(filled) && filled.left.message).toBe("unknown template variable {{secretKey}}")
  })

  it("leaves an intent without placeholders unchanged", () => {
    expect(fillTemplates({ lamports: 5, memo: "{ not a {template} }" }, values)).toEqual(
      Either.right({ lamports: 5, memo: "{ not a {template} }" })
    )
  })
})
