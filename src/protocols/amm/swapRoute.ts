/**
 * The route of a swap on this ledger, read live: which deployments a protocol uses (amm-one, amm-two, or
 * both for the dex-aggregator), each configured and deployed (else fail closed, spec rule 4), the pair's
 * pools on them, and the best route. Shared by the swap builder and POST /defi/quote.
 */
import { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { AdapterInputError } from "../adapterError.js"
import { AMM_PROGRAM_ID_SETTINGS, type AmmProtocol, isAmmProtocol } from "./ammIds.js"
import type { AccountsReader, PoolView } from "./poolReads.js"
import { readPairPool } from "./poolReads.js"
import type { AmmProgramInfo } from "./programs.js"
import { bestRoute, type Route } from "./quote.js"
import { compareWithOracle, type OracleComparison } from "../oracle/deviation.js"
import { readMintPrices } from "../oracle/oracleReads.js"
import { stalenessOf } from "../oracle/priceFreshness.js"

export interface RouteRequest {
  readonly protocol: string
  readonly inputMint: string
  readonly outputMint: string
  readonly amount: bigint
}

export interface RoutedSwap {
  readonly route: Route
  /** every pool of the pair the protocol considered */
  readonly pools: ReadonlyArray<PoolView>
  /** the oracle's price against the quote's; null when either mint has no valid price update, or a stale one */
  readonly oracle: (OracleComparison & { readonly inputPriceAccount: string; readonly outputPriceAccount: string }) | null
  /** why `oracle` is null when a feed exists but its price is older than ORACLE_MAX_PRICE_AGE_SECONDS (never compared) */
  readonly oracleUnavailable: string | null
}

const decimalsOf = (pool: PoolView, mint: string) => (pool.mintA.address === mint ? pool.mintA.decimals : pool.mintB.decimals)

/** Both mints' Pyth prices compared with the route's execution price; a stale price is not compared (fail closed). */
const oracleOf = (read: AccountsReader, pool: PoolView, request: RouteRequest, route: Route, maxPriceAgeSeconds: number) =>
  Effect.map(readMintPrices(read, [request.inputMint, request.outputMint]), ([input, output]): Pick<RoutedSwap, "oracle" | "oracleUnavailable"> => {
    if (input === null || input === undefined || output === null || output === undefined) return { oracle: null, oracleUnavailable: null }
    const stale = stalenessOf(input, maxPriceAgeSeconds) ?? stalenessOf(output, maxPriceAgeSeconds)
    if (stale !== null) return { oracle: null, oracleUnavailable: stale.message }
    const comparison = compareWithOracle(
      { update: input.update, decimals: decimalsOf(pool, request.inputMint) },
      { update: output.update, decimals: decimalsOf(pool, request.outputMint) },
      route.inAmount,
      route.outAmount
    )
    return {
      oracle: comparison === null ? null : { ...comparison, inputPriceAccount: input.account, outputPriceAccount: output.account },
      oracleUnavailable: null
    }
  })

/** The deployments a protocol routes over. */
export const sourcesOf = (protocol: string): ReadonlyArray<AmmProtocol> =>
  isAmmProtocol(protocol) ? [protocol] : protocol === "dex-aggregator" ? ["amm-one", "amm-two"] : []

export const routeSwap = (
  read: AccountsReader,
  programs: Readonly<Record<AmmProtocol, AmmProgramInfo>>,
  request: RouteRequest,
  maxPriceAgeSeconds: number
) =>
  Effect.gen(function* () {
    const refuse = (message: string, field?: string) =>
      new AdapterInputError({ protocol: request.protocol, operation: "swap", message, ...(field === undefined ? {} : { field }) })
    if (request.inputMint === request.outputMint) return yield* refuse("intent.outputMint must differ from intent.inputMint", "outputMint")
    const sources = sourcesOf(request.protocol)
    if (sources.length === 0) return yield* refuse(`${request.protocol} does not swap`)
    for (const source of sources) {
      if (!programs[source].configured) {
        return yield* refuse(`${source} is not configured on this cluster: set ${AMM_PROGRAM_ID_SETTINGS[source]}`)
      }
    }
    // Every source must answer: a program that is not deployed fails the swap (no route around it).
    const programAccounts = yield* read(sources.map((s) => programs[s].programId.toBase58()))
    for (const [i, source] of sources.entries()) {
      const account = programAccounts[i]
      if (account === null || account === undefined || !account.executable) {
        return yield* refuse(`${source} program ${programs[source].programId.toBase58()} is not deployed on this ledger: swaps fail closed`)
      }
    }
    const input = new PublicKey(request.inputMint)
    const output = new PublicKey(request.outputMint)
    const found = yield* Effect.forEach(sources, (source) => readPairPool(read, source, programs[source].programId, input, output), { concurrency: "unbounded" })
    const pools = found.filter((pool): pool is PoolView => pool !== null)
    if (pools.length === 0) return yield* refuse(`no ${sources.join(" or ")} pool trades ${request.inputMint} for ${request.outputMint}`)
    const route = bestRoute(pools, request.inputMint, request.amount)
    if (route === null) return yield* refuse(`the pools for this pair return nothing for ${request.amount}: the amount is too small or the pools are empty`, "amount")
    const oracle = yield* oracleOf(read, pools[0]!, request, route, maxPriceAgeSeconds)
    return { route, pools, ...oracle } satisfies RoutedSwap
  })
