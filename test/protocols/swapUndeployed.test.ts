/**
 * An AMM program id that is configured but not deployed on the ledger: the protocol's health is
 * `ok: false` (and the aggregator's, which needs both), a swap fails at build naming the missing program
 * with nothing signed, and a quote fails closed (spec rule 4) instead of answering from nowhere.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { useServiceWithLedger } from "../support/harness.js"
import type { DefiPools } from "../support/undeclaredAnswers.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const MISSING = Keypair.generate().publicKey.toBase58()
const env = useServiceWithLedger({ ledger: { amm: true }, env: { AMM_ONE_PROGRAM_ID: MISSING, AMM_TWO_PROGRAM_ID: "Ammtwo1111111111111111111111111111111111111" } })
const client = () => makeClient(env.service.baseUrl)

const intent = { inputMint: NATIVE_MINT.toBase58(), outputMint: mintBySymbol("USDC").address.toBase58(), amount: "1000000", slippageBps: 50 }

describe("an AMM program that is not deployed", () => {
  it("reports health ok: false for it and for the aggregator, ok: true for the deployed one", async () => {
    const one = (await client().protocols.protocolHealth({ params: { protocol: "amm-one" } })).body.data
    expect(one).toMatchObject({ protocol: "amm-one", ok: false, configured: true, deployed: false, programId: MISSING })
    expect(one.message).toContain("not deployed")
    expect((await client().protocols.protocolHealth({ params: { protocol: "dex-aggregator" } })).body.data).toMatchObject({ ok: false, deployed: false })
    expect((await client().protocols.protocolHealth({ params: { protocol: "amm-two" } })).body.data).toMatchObject({ ok: true, deployed: true })
  })

  it("fails a swap at build with a clear message and signs nothing; the aggregator fails closed too", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
    for (const protocol of ["amm-one", "dex-aggregator"]) {
      const created = await submit(env.service.baseUrl, { walletId: wallet.id, type: "swap", protocol, intent })
      const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body
      expect(settled).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
      expect(settled.error).toContain(`amm-one program ${MISSING} is not deployed`)
      expect(settled.data.signature ?? null).toBeNull()
    }
    const quote = await api(env.service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "dex-aggregator", ...intent, wallet: wallet.publicKey })
    expect(quote.status).toBe(500)
    expect(quote.body.error).toContain("not deployed")
    // the pool list says which source is missing and still lists the deployed one's pools
    const pools = (await api<DefiPools>(env.service.baseUrl, "GET", "/api/v1/defi/pools")).body.data
    expect(pools.sources).toEqual([
      { protocol: "amm-one", ok: false, message: `program ${MISSING} is not deployed on this ledger` },
      { protocol: "amm-two", ok: true }
    ])
    expect(pools.pools.every((pool) => pool.protocol === "amm-two")).toBe(true)
    expect(pools.pools).toHaveLength(2)
  })
})
