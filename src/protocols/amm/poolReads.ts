/**
 * Reads pools of our AMM deployments from the chain: the pool account, its vaults (reserves), mints
 * (decimals) and LP mint (shares outstanding), through one `accounts` reader (getMultipleAccounts).
 */
import { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import type { ChainError } from "../../chain/chainClient.js"
import type { AccountFacts } from "../../chain/chainFacts.js"
import type { AmmProtocol } from "./ammIds.js"
import { decodePoolState, poolAddress, type PoolState } from "./layout.js"
import { symbolOf } from "./localPools.js"

export type AccountsReader = (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<AccountFacts | null>, ChainError>

export interface MintView {
  readonly address: string
  readonly decimals: number
  readonly symbol: string | null
}

export interface PoolView {
  readonly protocol: AmmProtocol
  readonly programId: string
  readonly address: string
  readonly feeBps: number
  readonly mintA: MintView
  readonly mintB: MintView
  readonly vaultA: string
  readonly vaultB: string
  readonly lpMint: string
  readonly reserveA: bigint
  readonly reserveB: bigint
  readonly lpSupply: bigint
}

const tokenAmount = (account: AccountFacts | null) => (account !== null && account.data.length >= 72 ? account.data.readBigUInt64LE(64) : 0n)
const mintDecimals = (account: AccountFacts | null) => (account !== null && account.data.length >= 82 ? account.data[44]! : 0)
const mintSupply = (account: AccountFacts | null) => (account !== null && account.data.length >= 82 ? account.data.readBigUInt64LE(36) : 0n)

/** Completes decoded pool states with reserves, decimals and LP supply (one read for all of them). */
export const viewPools = (
  read: AccountsReader,
  pools: ReadonlyArray<{ readonly protocol: AmmProtocol; readonly programId: string; readonly address: string; readonly state: PoolState }>
): Effect.Effect<ReadonlyArray<PoolView>, ChainError> =>
  Effect.gen(function* () {
    if (pools.length === 0) return []
    const keys = pools.flatMap(({ state }) => [state.vaultA, state.vaultB, state.mintA, state.mintB, state.lpMint].map((k) => k.toBase58()))
    const accounts = yield* read(keys)
    return pools.map(({ protocol, programId, address, state }, i) => {
      const [vaultA, vaultB, mintA, mintB, lpMint] = accounts.slice(5 * i, 5 * i + 5)
      const mint = (key: PublicKey, account: AccountFacts | null | undefined): MintView => ({
        address: key.toBase58(), decimals: mintDecimals(account ?? null), symbol: symbolOf(key.toBase58())
      })
      return {
        protocol, programId, address, feeBps: state.feeBps,
        mintA: mint(state.mintA, mintA), mintB: mint(state.mintB, mintB),
        vaultA: state.vaultA.toBase58(), vaultB: state.vaultB.toBase58(), lpMint: state.lpMint.toBase58(),
        reserveA: tokenAmount(vaultA ?? null), reserveB: tokenAmount(vaultB ?? null), lpSupply: mintSupply(lpMint ?? null)
      }
    })
  })

/** The pool of a pair on one deployment, or null when that deployment has none. */
export const readPairPool = (read: AccountsReader, protocol: AmmProtocol, programId: PublicKey, x: PublicKey, y: PublicKey) =>
  Effect.gen(function* () {
    const address = poolAddress(programId, x, y)
    const [account] = yield* read([address.toBase58()])
    const state = account !== null && account !== undefined && account.owner === programId.toBase58() ? decodePoolState(account.data) : null
    if (state === null) return null
    const [view] = yield* viewPools(read, [{ protocol, programId: programId.toBase58(), address: address.toBase58(), state }])
    return view ?? null
  })
