/**
 * The DeFi swap helpers on the seeded local ledger: GET /defi/pools lists every pool with its mints,
 * reserves and fee; POST /defi/quote equals the AMM's arithmetic on the live pools (the aggregator splits
 * when that pays more); POST /defi/swap previews the unsigned transaction and names the POST /transactions
 * request that executes it, which confirms with the quoted output and a proof that recomputes from /replay.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Transaction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { canonicalJson, sha256Hex } from "../../src/pipeline/proof.js"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { swapOutput } from "../../src/protocols/amm/math.js"
import { useServiceWithLedger } from "../support/harness.js"
import { defined } from "../support/defined.js"
import type { DefiPools, DefiPreview, SwapQuote } from "../support/undeclaredAnswers.js"
import { readPool, tokenBalance } from "../support/pools.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger({
  ledger: { amm: true },
  env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"] }
})

const SOL = NATIVE_MINT.toBase58()
const USDC = mintBySymbol("USDC").address.toBase58()

describe("DeFi swap helpers", () => {
  it("lists every seeded pool with both mints, reserves and fee", async () => {
    const response = await api<DefiPools>(env.service.baseUrl, "GET", "/api/v1/defi/pools")
    expect(response.status).toBe(200)
    const pools = response.body.data.pools
    expect(pools).toHaveLength(4)
    const symbols = pools.map((p) => `${p.protocol} ${[p.mintA.symbol, p.mintB.symbol].sort().join("/")} ${p.feeBps}`).sort()
    expect(symbols).toEqual(["amm-one BONK/USDC 30", "amm-one SOL/USDC 30", "amm-two BONK/USDC 10", "amm-two SOL/USDC 10"])
    const solUsdc = defined(pools.find((p) => p.protocol === "amm-one" && [p.mintA.symbol, p.mintB.symbol].includes("SOL")), "the amm-one SOL/USDC pool")
    const onChain = await readPool(env.ledger.rpcUrl, "amm-one", NATIVE_MINT, mintBySymbol("USDC").address)
    expect(solUsdc).toMatchObject({ address: onChain.address, reserveA: onChain.reserveA.toString(), reserveB: onChain.reserveB.toString() })
    expect([solUsdc.mintA.decimals, solUsdc.mintB.decimals].sort()).toEqual([6, 9])
    expect(response.body.data.sources).toEqual([{ protocol: "amm-one", ok: true }, { protocol: "amm-two", ok: true }])
  })

  it("quotes exactly what the pool pays, and the aggregator splits a large amount across both AMMs", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const pool = await readPool(env.ledger.rpcUrl, "amm-two", NATIVE_MINT, mintBySymbol("USDC").address)
    const [reserveIn, reserveOut] = pool.mintA.address === SOL ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA]
    const single = await api<SwapQuote>(env.service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "amm-two", inputMint: SOL, outputMint: USDC, amount: "100000000", wallet: wallet.publicKey })
    expect(single.status).toBe(200)
    const expected = swapOutput(100_000_000n, reserveIn, reserveOut, 10)
    expect(single.body.data).toMatchObject({
      inAmount: "100000000", outAmount: expected.toString(), slippageBps: 50,
      minimumOut: ((expected * 9_950n) / 10_000n).toString(),
      route: [{ protocol: "amm-two", pool: pool.address, inAmount: "100000000", outAmount: expected.toString(), feeBps: 10, feeAmount: "100000" }]
    })
    expect(Date.parse(single.body.data.quotedAt)).not.toBeNaN()

    const split = await api<SwapQuote>(env.service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "dex-aggregator", inputMint: SOL, outputMint: USDC, amount: "9000000000", wallet: wallet.publicKey, slippageBps: 100 })
    expect(split.status).toBe(200)
    const legs = split.body.data.route
    expect(legs.map((leg) => leg.protocol).sort()).toEqual(["amm-one", "amm-two"])
    expect(legs.reduce((sum, leg) => sum + BigInt(leg.inAmount), 0n)).toBe(9_000_000_000n)
    expect(legs.reduce((sum, leg) => sum + BigInt(leg.outAmount), 0n).toString()).toBe(split.body.data.outAmount)
  })

  it("previews a swap, and its execute request confirms through the pipeline with a proof that recomputes", async () => {
    const wallet = await createWallet(env.service.baseUrl, 3_000_000_000)
    const preview = await api<DefiPreview<SwapQuote>>(env.service.baseUrl, "POST", "/api/v1/defi/swap", { protocol: "amm-one", inputMint: SOL, outputMint: USDC, amount: "500000000", wallet: wallet.publicKey, slippageBps: 100 })
    expect(preview.status).toBe(200)
    const { quote, transaction, execute } = preview.body.data
    const unsigned = Transaction.from(Buffer.from(transaction.unsignedTransaction, "base64"))
    expect(unsigned.feePayer?.toBase58()).toBe(wallet.publicKey)
    expect(unsigned.signatures.every((s) => s.signature === null)).toBe(true)
    expect(transaction.programIds).toContain(LOCAL_AMM_PROGRAM_IDS["amm-one"])
    expect(execute).toMatchObject({ method: "POST", path: "/api/v1/transactions", body: { walletId: wallet.id, type: "swap", protocol: "amm-one" } })

    const created = await submit(env.service.baseUrl, execute.body)
    expect(created.status).toBe(201)
    const tx = (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body.data
    expect(tx.status).toBe("confirmed")
    const received = await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, mintBySymbol("USDC").address)
    // nothing else traded in between: exactly the quote
    expect(received.toString()).toBe(quote.outAmount)

    const replay = (await makeClient(env.service.baseUrl).transactions.replay({ params: { txId: tx.id } })).body.data
    const proof = (await makeClient(env.service.baseUrl).transactions.proof({ params: { txId: tx.id } })).body.data
    const hashes = {
      intentHash: sha256Hex(canonicalJson(replay.request.intent)),
      policyHash: sha256Hex(canonicalJson(replay.policyDecision)),
      simulationHash: sha256Hex(canonicalJson(replay.simulation))
    }
    expect(hashes).toEqual({ intentHash: proof.intentHash, policyHash: proof.policyHash, simulationHash: proof.simulationHash })
    expect(sha256Hex([hashes.intentHash, hashes.policyHash, hashes.simulationHash, tx.signature].join("|"))).toBe(proof.proofHash)
  })

  it("refuses a bad body with a 400 naming the field, and a pair without a pool at build", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const bad = await api(env.service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "amm-one", inputMint: SOL, outputMint: USDC, amount: "-1", wallet: wallet.publicKey })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("amount")
    const noPool = await api(env.service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "amm-one", inputMint: SOL, outputMint: mintBySymbol("BONK").address.toBase58(), amount: "1000", wallet: wallet.publicKey })
    expect(noPool.status).toBe(500)
    expect(noPool.body).toMatchObject({ errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(noPool.body.error).toContain("no amm-one pool")
  })
})
