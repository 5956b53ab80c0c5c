/** Lamports leave as exact JSON integers, also beyond 2^53 (issue 17 item 2). */
import { describe, expect, it } from "vitest"
import { wireJson } from "../../src/gateway/wireJson.js"

describe("wireJson", () => {
  it("writes bigints as integer literals of any size, exactly", () => {
    const text = wireJson({ lamports: 18_446_744_073_709_551_615n, small: 5n, negative: -9_007_199_254_740_993n })
    expect(text).toBe('{"lamports":18446744073709551615,"small":5,"negative":-9007199254740993}')
  })

  it("writes decimal strings in lamport fields as integers, and leaves other strings alone", () => {
    const text = wireJson({
      result: { lamports: "9007199254740993", sol: 9007199.254740993 },
      funding: { lamports: "1000" },
      budgetLamports: "12",
      balance_lamports: "7",
      amount: "500",
      label: "lamports",
      note: { lamports: "not a number" }
    })
    expect(text).toBe(
      '{"result":{"lamports":9007199254740993,"sol":9007199.254740993},"funding":{"lamports":1000},"budgetLamports":12,"balance_lamports":7,"amount":"500","label":"lamports","note":{"lamports":"not a number"}}'
    )
  })

  it("writes a SOL position's amount (lamports) as an integer; another token's amount stays a decimal string", () => {
    const positions = [
      { type: "native", token: "SOL", amount: "18446744073709551615", valueLamports: "18446744073709551615" },
      { type: "escrow", token: "SOL", amount: "100000000" },
      { type: "token", token: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", amount: "2500000" }
    ]
    expect(wireJson({ positions })).toBe(
      '{"positions":[{"type":"native","token":"SOL","amount":18446744073709551615,"valueLamports":18446744073709551615},' +
        '{"type":"escrow","token":"SOL","amount":100000000},{"type":"token","token":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","amount":"2500000"}]}'
    )
  })

  it("never turns a client's string into a number, whatever it contains", () => {
    const sneaky = { label: '#int-00000000-0000-0000-0000-000000000000:5', lamports: 1n }
    expect(JSON.parse(wireJson(sneaky))).toEqual({ label: sneaky.label, lamports: 1 })
  })
})
