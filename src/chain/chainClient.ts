/**
 * The service's only road to a ledger: Solana JSON-RPC through the scored RPC pool. The endpoints come
 * from CHAIN_RPC_URL + CHAIN_RPC_POOL_URLS, or from the local ledger that main started.
 */
import { Context, Effect } from "effect"
import { AppConfig } from "../config.js"
import { RpcApplicationError, RpcUnavailableError } from "./rpcErrors.js"
import { type AnswerJudge, RpcPool } from "./rpcPool.js"

/** The RPC URLs to use, decided at start (configured, or the spawned local ledger's). */
export class ChainEndpoints extends Context.Tag("ChainEndpoints")<ChainEndpoints, { readonly urls: ReadonlyArray<string> }>() {}

export type ChainError = RpcApplicationError | RpcUnavailableError

const isChainError = (error: unknown): error is ChainError => error instanceof RpcApplicationError || error instanceof RpcUnavailableError

/** A JSON-RPC method and its parameters, to be sent with another (ChainClient.rpcPair). */
export interface RpcCall {
  readonly method: string
  readonly params: ReadonlyArray<unknown>
}

/** The SPL Token program; token accounts are read under it unless another program is named. */
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

/** One token account of an owner, as getTokenAccountsByOwner (jsonParsed) describes it. */
export interface OwnedTokenAccount {
  readonly mint: string
  readonly amount: string
  readonly decimals: number
  readonly uiAmount: number | null
  readonly tokenAccount: string
}

interface ParsedTokenAccount {
  readonly pubkey: string
  readonly account: {
    readonly data: { readonly parsed: { readonly info: { readonly mint: string; readonly tokenAmount: { amount: string; decimals: number; uiAmount: number | null } } } }
  }
}

export class ChainClient extends Effect.Service<ChainClient>()("ChainClient", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const { urls } = yield* ChainEndpoints
    const failoverListeners: Array<(from: string, to: string) => void> = []
    const pool = new RpcPool(urls, {
      maxRetries: config.chain.maxRetries,
      retryDelayMs: config.chain.retryDelayMs,
      timeoutMs: config.chain.timeoutMs,
      maxBatch: config.chain.maxBatch,
      onFailover: (from, to) => failoverListeners.forEach((listener) => listener(from, to))
    })

    const asChainError = (method: string) => (error: unknown): ChainError =>
      isChainError(error)
        ? error
        : new RpcUnavailableError({ method, attempts: [], message: `${method} failed: ${String(error)}` })

    const rpc = <T>(method: string, params: ReadonlyArray<unknown> = []) =>
      Effect.tryPromise({ try: () => pool.call<T>(method, params), catch: asChainError(method) })

    /**
     * Two calls made in one turn, so the RPC pool sends them as one JSON-RPC batch, answered in order. Not
     * `Effect.all` with concurrency, which on Effect 3 forks a fiber per call and one to run them (about 70 us
     * of CPU, docs/benchmarks.md). The first failure fails both, as `Effect.all` would; the other call's
     * answer, if it comes, is dropped.
     */
    const rpcPair = <A, B>(first: RpcCall, second: RpcCall): Effect.Effect<readonly [A, B], ChainError> =>
      Effect.tryPromise({
        try: () =>
          Promise.all([
            pool.call<A>(first.method, first.params).catch((error: unknown) => Promise.reject(asChainError(first.method)(error))),
            pool.call<B>(second.method, second.params).catch((error: unknown) => Promise.reject(asChainError(second.method)(error)))
          ] as const),
        catch: (error) => (isChainError(error) ? error : asChainError(`${first.method}+${second.method}`)(error))
      })

    /** A read taken only from an endpoint whose answer `judge` accepts (RpcPool.callTrusted). */
    const rpcTrusted = <T>(method: string, params: ReadonlyArray<unknown>, judge: AnswerJudge) =>
      Effect.tryPromise({ try: () => pool.callTrusted<T>(method, params, judge), catch: asChainError(method) })

    const getBalance = (address: string) =>
      Effect.map(rpc<{ value: number }>("getBalance", [address, { commitment: "confirmed" }]), (r) => BigInt(r.value))

    const tokenAccounts = (owner: string, programId: string = TOKEN_PROGRAM_ID) =>
      Effect.map(
        rpc<{ value: ReadonlyArray<ParsedTokenAccount> }>("getTokenAccountsByOwner", [owner, { programId }, { encoding: "jsonParsed", commitment: "confirmed" }]),
        ({ value }) =>
          value.map((entry): OwnedTokenAccount => {
            const info = entry.account.data.parsed.info
            return { mint: info.mint, amount: info.tokenAmount.amount, decimals: info.tokenAmount.decimals, uiAmount: info.tokenAmount.uiAmount, tokenAccount: entry.pubkey }
          })
      )

    return {
      pool,
      tokenAccounts,
      rpc,
      rpcPair,
      rpcTrusted,
      getBalance,
      onFailover: (listener: (from: string, to: string) => void) => {
        failoverListeners.push(listener)
      }
    }
  })
}) {}
