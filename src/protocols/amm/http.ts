/**
 * DeFi swap helpers (spec: Protocols and DeFi helpers; bodies in docs/decisions/swaps.md):
 * - GET /defi/pools lists every pool of both AMM deployments, live from the chain;
 * - POST /defi/quote routes the amount over live pools (no stale or synthetic quote: spec rule 4);
 * - POST /defi/swap answers the same quote plus the unsigned transaction it would build, and the
 *   POST /transactions request that executes it through the pipeline (never a path around it).
 */
import { PublicKey, Transaction } from "@solana/web3.js"
import { Effect } from "effect"
import { PipelineError, UpstreamUnavailable } from "../../../schemas/errors.js"
import { QuoteBody, type QuoteBody as QuoteBodyType } from "../../../schemas/protocol.js"
import { ChainClient } from "../../chain/chainClient.js"
import { actingAgent, Caller } from "../../gateway/caller.js"
import { ok } from "../../gateway/envelope.js"
import { decodeBody } from "../../gateway/request.js"
import { route } from "../../gateway/route.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import type { AdapterInputError } from "../adapterError.js"
import { decodePoolState, POOL_ACCOUNT_SIZE } from "./layout.js"
import { type PoolView, viewPools } from "./poolReads.js"
import { AmmPrograms } from "./programs.js"
import { minimumOutFor, type Route } from "./quote.js"
import { buildSwap } from "./swapBuilder.js"
import { DefiApi } from "../../../schemas/api/defi.js"
import { routeSwap } from "./swapRoute.js"
import { OracleFreshness } from "../oracle/oracleFreshness.js"

const poolToWire = (pool: PoolView) => ({
  protocol: pool.protocol,
  programId: pool.programId,
  address: pool.address,
  feeBps: pool.feeBps,
  mintA: pool.mintA,
  mintB: pool.mintB,
  reserveA: pool.reserveA.toString(),
  reserveB: pool.reserveB.toString(),
  vaultA: pool.vaultA,
  vaultB: pool.vaultB,
  lpMint: pool.lpMint,
  lpSupply: pool.lpSupply.toString()
})

const refusedAtBuild = (error: AdapterInputError) => new PipelineError({ stage: "build", message: error.message })
const upstream = (error: { readonly message: string }) => new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` })

const listPools = Effect.gen(function* () {
  const chain = yield* ChainClient
  const facts = yield* ChainFacts
  const { all } = yield* AmmPrograms
  const sources = yield* Effect.forEach(all, (program) =>
    Effect.gen(function* () {
      if (!program.configured) return { protocol: program.protocol, ok: false, message: "program id not configured", pools: [] as PoolView[] }
      const [programAccount] = yield* facts.accounts([program.programId.toBase58()])
      if (programAccount === null || programAccount === undefined || !programAccount.executable) {
        return { protocol: program.protocol, ok: false, message: `program ${program.programId.toBase58()} is not deployed on this ledger`, pools: [] as PoolView[] }
      }
      const accounts = yield* chain.rpc<Array<{ pubkey: string; account: { data: [string, string] } }>>("getProgramAccounts", [
        program.programId.toBase58(),
        { encoding: "base64", commitment: "confirmed", filters: [{ dataSize: POOL_ACCOUNT_SIZE }] }
      ])
      const states = accounts.flatMap(({ pubkey, account }) => {
        const state = decodePoolState(Buffer.from(account.data[0], "base64"))
        return state === null ? [] : [{ protocol: program.protocol, programId: program.programId.toBase58(), address: pubkey, state }]
      })
      const pools = yield* viewPools(facts.accounts, states)
      return { protocol: program.protocol, ok: true, pools: [...pools] }
    })
  ).pipe(Effect.mapError(upstream))
  return ok({
    pools: sources.flatMap((source) => source.pools.map(poolToWire)),
    sources: sources.map(({ protocol, ok: sourceOk, ...rest }) => ({ protocol, ok: sourceOk, ...("message" in rest ? { message: rest.message } : {}) }))
  })
})

const routeToWire = (route: Route) =>
  route.legs.map((leg) => ({
    protocol: leg.protocol,
    programId: leg.programId,
    pool: leg.pool,
    inputMint: leg.inputMint,
    outputMint: leg.outputMint,
    inAmount: leg.inAmount.toString(),
    outAmount: leg.outAmount.toString(),
    feeBps: leg.feeBps,
    feeAmount: leg.feeAmount.toString(),
    priceImpactBps: leg.priceImpactBps
  }))

const quoteOf = (body: QuoteBodyType) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const { programs } = yield* AmmPrograms
    const { maxAgeSeconds } = yield* OracleFreshness
    const routed = yield* routeSwap(facts.accounts, programs, body, maxAgeSeconds).pipe(
      Effect.catchTags({ AdapterInputError: (error) => Effect.fail(refusedAtBuild(error)), RpcUnavailableError: (e) => Effect.fail(upstream(e)), RpcApplicationError: (e) => Effect.fail(upstream(e)) })
    )
    const { route } = routed
    const minimumOut = minimumOutFor(route.outAmount, body.slippageBps)
    return {
      protocol: body.protocol,
      wallet: body.wallet,
      inputMint: body.inputMint,
      outputMint: body.outputMint,
      inAmount: route.inAmount.toString(),
      outAmount: route.outAmount.toString(),
      minimumOut: minimumOut.toString(),
      slippageBps: body.slippageBps,
      priceImpactBps: route.priceImpactBps,
      fees: route.legs.map((leg) => ({ protocol: leg.protocol, pool: leg.pool, mint: leg.inputMint, amount: leg.feeAmount.toString(), bps: leg.feeBps })),
      route: routeToWire(route),
      pools: routed.pools.map(poolToWire),
      oracle: routed.oracle,
      ...(routed.oracleUnavailable === null ? {} : { oracleUnavailable: routed.oracleUnavailable }),
      quotedAt: new Date().toISOString()
    }
  })

const quote = Effect.gen(function* () {
  const body = yield* decodeBody(QuoteBody)
  return ok(yield* quoteOf(body))
})

const swap = Effect.gen(function* () {
  const body = yield* decodeBody(QuoteBody)
  const quoted = yield* quoteOf(body)
  const intent = { inputMint: body.inputMint, outputMint: body.outputMint, amount: body.amount, slippageBps: body.slippageBps, minimumOut: BigInt(quoted.minimumOut) }
  const wallet = new PublicKey(body.wallet)
  const built = yield* buildSwap({ type: "swap", protocol: body.protocol, wallet, intent }).pipe(
    Effect.catchTags({ AdapterInputError: (error) => Effect.fail(refusedAtBuild(error)), RpcUnavailableError: (e) => Effect.fail(upstream(e)), RpcApplicationError: (e) => Effect.fail(upstream(e)) })
  )
  const chain = yield* ChainClient
  const { value } = yield* chain.rpc<{ value: { blockhash: string } }>("getLatestBlockhash", [{ commitment: "confirmed" }]).pipe(Effect.mapError(upstream))
  const preview = new Transaction({ feePayer: wallet, recentBlockhash: value.blockhash }).add(...built.instructions)
  // The wallet's id, when an operator's key can see a custodied wallet with this key: the execute body names it.
  // An agent's key learns no wallet id here (it knows its own; it may not look up the tenant's others).
  const caller = yield* Caller
  const { wallets } = actingAgent(caller) === null
    ? yield* (yield* WalletRepo).list(caller.readTenant, { limit: 1, offset: 0, publicKey: body.wallet })
    : { wallets: [] }
  const walletId = wallets[0]?.id ?? null
  return ok({
    quote: quoted,
    transaction: {
      unsignedTransaction: preview.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
      encoding: "base64",
      programIds: built.programIds,
      instructions: built.instructions.length,
      note: "preview only: the service signs a swap only through POST /api/v1/transactions (policy, risk, approval, proof); the pipeline adds compute budget instructions and a fresh blockhash"
    },
    execute: {
      method: "POST",
      path: "/api/v1/transactions",
      body: {
        walletId,
        type: "swap",
        protocol: body.protocol,
        intent: { inputMint: body.inputMint, outputMint: body.outputMint, amount: body.amount.toString(), slippageBps: body.slippageBps, minimumOut: quoted.minimumOut }
      }
    }
  })
})

export const swapRoutes = [
  route(DefiApi.pools, listPools, "agent"),
  route(DefiApi.quote, quote, "agent"),
  route(DefiApi.swap, swap, "agent")
]
