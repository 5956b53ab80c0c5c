/**
 * Chain facts the adapters need before they build (adapters make no RPC calls): accounts read in one
 * getMultipleAccounts, SPL mint and token account layouts decoded, rent minimums cached per size.
 */
import { Effect } from "effect"
import type { ChainError, RpcCall } from "./chainClient.js"
import { ChainClient } from "./chainClient.js"

export interface AccountFacts {
  readonly lamports: bigint
  readonly owner: string
  readonly data: Buffer
  readonly executable: boolean
}

interface RpcAccount {
  readonly lamports: number
  readonly owner: string
  readonly data: [string, string]
  readonly executable: boolean
}

/** SPL mint layout: mintAuthority COption<Pubkey> (36), supply u64 (8), decimals u8 at 44. */
export const decodeMint = (data: Buffer) => ({
  mintAuthority: data.readUInt32LE(0) === 1 ? data.subarray(4, 36) : null,
  decimals: data[44]
})

/** SPL token account layout: mint (32), owner (32), amount u64 at 64. */
export const decodeTokenAccountAmount = (data: Buffer) => data.readBigUInt64LE(64)

/** getMultipleAccounts' answer. */
export interface AccountsAnswer {
  readonly value: ReadonlyArray<RpcAccount | null>
}

/** The read of `accounts`, to be sent beside another call (ChainClient.rpcPair); its answer goes to accountFactsOf. */
const accountsCall = (addresses: ReadonlyArray<string>): RpcCall => ({
  method: "getMultipleAccounts",
  params: [addresses, { encoding: "base64", commitment: "confirmed" }]
})

const accountFactsOf = ({ value }: AccountsAnswer): ReadonlyArray<AccountFacts | null> =>
  value.map((account) =>
    account === null
      ? null
      : { lamports: BigInt(account.lamports), owner: account.owner, data: Buffer.from(account.data[0], "base64"), executable: account.executable }
  )

export class ChainFacts extends Effect.Service<ChainFacts>()("ChainFacts", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const rentBySize = new Map<number, bigint>()

    const accounts = (addresses: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<AccountFacts | null>, ChainError> => {
      const call = accountsCall(addresses)
      return Effect.map(chain.rpc<AccountsAnswer>(call.method, call.params), accountFactsOf)
    }

    const rentExemptMinimum = (size: number): Effect.Effect<bigint, ChainError> => {
      const cached = rentBySize.get(size)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.map(chain.rpc<number>("getMinimumBalanceForRentExemption", [size]), (lamports) => {
        rentBySize.set(size, BigInt(lamports))
        return BigInt(lamports)
      })
    }

    return { accounts, accountsCall, accountFactsOf, rentExemptMinimum }
  })
}) {}
