/**
 * Reading a 402 answer (pure): the reference HTTP client parses the v2 header and the v1 body, and the
 * selection takes the cheapest Solana `exact` requirement (in the intent's asset when it names one).
 */
import { encodePaymentRequiredHeader } from "@x402/core/http"
import { describe, expect, it } from "vitest"
import { httpClient } from "../../src/protocols/x402/paymentBuilder.js"
import { selectRequirement } from "../../src/protocols/x402/selectRequirement.js"

const MINT_A = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
const MINT_B = "So11111111111111111111111111111111111111112"
const PAYEE = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
const FEE_PAYER = "EwWqGE4ZFKLofuestmU4LDdK7XM1N4ALgdZccwYugwGd"
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"

const v2 = (amount: string, asset = MINT_A, network = DEVNET, scheme = "exact") => ({
  scheme, network, amount, asset, payTo: PAYEE, maxTimeoutSeconds: 60, extra: { feePayer: FEE_PAYER }
})

describe("x402 requirements", () => {
  it("parses a v2 PAYMENT-REQUIRED header and a v1 body with the reference client", () => {
    const required = { x402Version: 2, resource: { url: "http://127.0.0.1/r", description: "", mimeType: "" }, accepts: [v2("100")] }
    const header = encodePaymentRequiredHeader(required as Parameters<typeof encodePaymentRequiredHeader>[0])
    expect(httpClient.getPaymentRequiredResponse((name) => (name === "PAYMENT-REQUIRED" ? header : null)).accepts[0]).toMatchObject({ amount: "100", payTo: PAYEE })
    const v1Body = { x402Version: 1, error: "payment required", accepts: [{ scheme: "exact", network: "solana-devnet", maxAmountRequired: "250", asset: MINT_A, payTo: PAYEE, resource: "http://x/r", description: "", mimeType: "", maxTimeoutSeconds: 60, extra: { feePayer: FEE_PAYER } }] }
    const parsed = httpClient.getPaymentRequiredResponse(() => null, v1Body)
    expect(parsed.x402Version).toBe(1)
    const selected = selectRequirement(parsed.accepts as Array<{ scheme: string; network: string; asset: string; payTo: string; maxAmountRequired?: string; extra?: Record<string, unknown> }>, {})
    expect("refused" in selected ? selected.refused : selected.amount).toBe(250n)
    expect(() => httpClient.getPaymentRequiredResponse(() => null, { hello: "world" })).toThrow()
  })

  it("takes the cheapest Solana exact requirement, in the intent's asset when given", () => {
    const accepts = [v2("300"), v2("200", MINT_B), v2("50", MINT_A, "eip155:8453"), v2("10", MINT_A, DEVNET, "upto"), v2("120")]
    const cheapest = selectRequirement(accepts, {})
    expect("refused" in cheapest ? cheapest.refused : [cheapest.amount, cheapest.requirement.asset]).toEqual([120n, MINT_A])
    const inB = selectRequirement(accepts, { asset: MINT_B })
    expect("refused" in inB ? inB.refused : inB.amount).toBe(200n)
  })

  it("refuses when nothing can be paid: another chain, another asset, no fee payer, a malformed amount", () => {
    const refusal = (accepts: ReadonlyArray<Omit<ReturnType<typeof v2>, "extra"> & { extra: Record<string, unknown> }>, asset?: string) => {
      const selected = selectRequirement(accepts, { asset })
      return "refused" in selected ? selected.refused : null
    }
    expect(refusal([v2("1", MINT_A, "eip155:8453")])).toContain("no Solana")
    expect(refusal([v2("1", MINT_A)], MINT_B)).toContain(`in asset ${MINT_B}`)
    expect(refusal([{ ...v2("1"), extra: {} }])).toContain("no Solana")
    expect(refusal([v2("-5"), v2("1.5"), v2("0")])).toContain("no Solana")
  })
})
