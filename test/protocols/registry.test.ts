import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { describe, expect, it } from "vitest"
import { adapterToWire, findAdapter, PROTOCOL_IDS, protocolRegistry } from "../../src/protocols/registry.js"

describe("protocol registry", () => {
  const registry = protocolRegistry()

  it("lists all nine protocols with a version", () => {
    expect(registry.map((a) => a.protocol)).toEqual([...PROTOCOL_IDS])
    expect(registry.every((a) => a.version === "1.0.0")).toBe(true)
  })

  it("carries the spec's capabilities", () => {
    const caps = (p: string) => findAdapter(registry, p)?.capabilities
    expect(caps("system-program")).toEqual(["transfer_sol", "create_account"])
    expect(caps("spl-token")).toEqual(["transfer_spl", "create_mint", "mint_token", "burn_token", "x402_pay"])
    expect(caps("dex-aggregator")).toEqual(["swap", "quote"])
    expect(caps("liquid-staking")).toEqual(["stake", "unstake"])
    // the spec's two, and flash_loan_bundle, which borrows from this market (docs/decisions/lending.md)
    expect(caps("lending-market")).toEqual(["lend_supply", "lend_borrow", "lend_withdraw", "lend_repay", "flash_loan_bundle"])
    expect(caps("nft-program")).toEqual(["nft_mint"])
    expect(caps("amm-one")).toEqual(["swap"])
    expect(caps("amm-two")).toEqual(["swap"])
    expect(caps("escrow")?.slice(0, 3)).toEqual(["create_escrow", "accept_escrow", "release_escrow"])
    expect(caps("escrow")).toContain("refund_escrow")
  })

  it("uses the real program ids", () => {
    expect(findAdapter(registry, "system-program")?.programIds).toEqual(["11111111111111111111111111111111"])
    expect(findAdapter(registry, "spl-token")?.programIds).toEqual([
      TOKEN_PROGRAM_ID.toBase58(),
      ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
      "11111111111111111111111111111111"
    ])
    expect(TOKEN_PROGRAM_ID.toBase58()).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
    expect(ASSOCIATED_TOKEN_PROGRAM_ID.toBase58()).toBe("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
    expect(findAdapter(registry, "escrow")?.programIds).toEqual(["Escrow1111111111111111111111111111111111111"])
  })

  it("takes the escrow program id from configuration and refuses a bad one", () => {
    const custom = protocolRegistry({ escrowProgramId: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" })
    expect(findAdapter(custom, "escrow")?.programIds).toEqual(["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"])
    expect(() => protocolRegistry({ escrowProgramId: "not-a-key" })).toThrow(/ESCROW_PROGRAM_ID/)
  })

  it("marks every protocol implemented (each has builders) with its program ids", () => {
    expect(registry.every((adapter) => adapter.implemented && adapter.programIds.length > 0)).toBe(true)
    expect(findAdapter(registry, "system-program")?.implemented).toBe(true)
    expect(findAdapter(registry, "nft-program")).toMatchObject({
      implemented: true,
      programIds: ["TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb", "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", "11111111111111111111111111111111"]
    })
    expect(findAdapter(registry, "nope")).toBeUndefined()
  })

  it("lists lending-market at the local ledger's id, or at LENDING_MARKET_PROGRAM_ID", () => {
    expect(findAdapter(registry, "lending-market")).toMatchObject({ implemented: true, programIds: ["LendMkt111111111111111111111111111111111111"] })
    const custom = protocolRegistry({ lendingMarketProgramId: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" })
    expect(findAdapter(custom, "lending-market")?.programIds).toEqual(["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"])
    expect(() => protocolRegistry({ lendingMarketProgramId: "not-a-key" })).toThrow(/LENDING_MARKET_PROGRAM_ID/)
  })

  it("lists liquid-staking at the local ledger's id, or at LIQUID_STAKING_PROGRAM_ID", () => {
    expect(findAdapter(registry, "liquid-staking")).toMatchObject({ implemented: true, programIds: ["LiqStake11111111111111111111111111111111111"] })
    const custom = protocolRegistry({ liquidStakingProgramId: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" })
    expect(findAdapter(custom, "liquid-staking")?.programIds).toEqual(["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"])
    expect(() => protocolRegistry({ liquidStakingProgramId: "not-a-key" })).toThrow(/LIQUID_STAKING_PROGRAM_ID/)
  })

  it("lists the AMM programs at the local ledger's ids, or at AMM_ONE_PROGRAM_ID / AMM_TWO_PROGRAM_ID", () => {
    expect(findAdapter(registry, "amm-one")?.programIds).toEqual(["Ammone1111111111111111111111111111111111111"])
    expect(findAdapter(registry, "amm-two")?.programIds).toEqual(["Ammtwo1111111111111111111111111111111111111"])
    expect(findAdapter(registry, "dex-aggregator")?.programIds).toEqual([
      "Ammone1111111111111111111111111111111111111",
      "Ammtwo1111111111111111111111111111111111111"
    ])
    const custom = protocolRegistry({ ammOneProgramId: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" })
    expect(findAdapter(custom, "amm-one")?.programIds).toEqual(["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"])
    expect(() => protocolRegistry({ ammTwoProgramId: "not-a-key" })).toThrow(/AMM_TWO_PROGRAM_ID/)
  })

  it("has a wire shape with exactly the spec's four fields", () => {
    expect(Object.keys(adapterToWire(registry[0])).sort()).toEqual(["capabilities", "programIds", "protocol", "version"])
  })
})
