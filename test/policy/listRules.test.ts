import { describe, expect, it } from "vitest"
import { ADDR_A, ADDR_B, ADDR_C, SYSTEM_PROGRAM, TOKEN_PROGRAM, USDC_MINT, decisionOf } from "./fixtures.js"

describe("address_allowlist", () => {
  const rule = { type: "address_allowlist", addresses: [ADDR_A, ADDR_B] }
  it.each([
    { destination: ADDR_A, expected: "allow" },
    { destination: ADDR_B, expected: "allow" },
    { destination: ADDR_C, expected: "deny" },
    { destination: undefined, expected: "allow" }
  ])("destination $destination -> $expected", ({ destination, expected }) => {
    expect(decisionOf([rule], { destination })).toBe(expected)
  })
  it("an empty list denies every destination", () => {
    expect(decisionOf([{ type: "address_allowlist", addresses: [] }], { destination: ADDR_A })).toBe("deny")
  })
})

describe("address_blocklist", () => {
  const rule = { type: "address_blocklist", addresses: [ADDR_A] }
  it.each([
    { destination: ADDR_A, expected: "deny" },
    { destination: ADDR_B, expected: "allow" },
    { destination: undefined, expected: "allow" }
  ])("destination $destination -> $expected", ({ destination, expected }) => {
    expect(decisionOf([rule], { destination })).toBe(expected)
  })
})

describe("program_allowlist", () => {
  const rule = { type: "program_allowlist", programIds: [SYSTEM_PROGRAM] }
  it.each([
    { programIds: [SYSTEM_PROGRAM], expected: "allow" },
    { programIds: [], expected: "allow" },
    { programIds: [SYSTEM_PROGRAM, TOKEN_PROGRAM], expected: "deny" },
    { programIds: [TOKEN_PROGRAM], expected: "deny" },
    { programIds: undefined, expected: "deny" } // cannot be checked: fail closed
  ])("programs $programIds -> $expected", ({ programIds, expected }) => {
    expect(decisionOf([rule], { programIds })).toBe(expected)
  })
})

describe("token_allowlist", () => {
  const rule = { type: "token_allowlist", mints: [USDC_MINT] }
  it.each([
    { tokenMint: USDC_MINT, expected: "allow" },
    { tokenMint: ADDR_A, expected: "deny" },
    { tokenMint: undefined, expected: "allow" }
  ])("mint $tokenMint -> $expected", ({ tokenMint, expected }) => {
    expect(decisionOf([rule], { tokenMint })).toBe(expected)
  })
})

describe("protocol_allowlist", () => {
  const rule = { type: "protocol_allowlist", protocols: ["system-program", "spl-token"] }
  it.each([
    { protocol: "system-program", expected: "allow" },
    { protocol: "spl-token", expected: "allow" },
    { protocol: "dex-aggregator", expected: "deny" }
  ])("protocol $protocol -> $expected", ({ protocol, expected }) => {
    expect(decisionOf([rule], { protocol })).toBe(expected)
  })
})
