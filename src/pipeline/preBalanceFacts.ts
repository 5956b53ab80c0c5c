/**
 * The wallet's pre-balance read together with the adapter's chain facts: the build's first
 * getMultipleAccounts also reads the wallet's account, which saves a getBalance round trip per
 * transaction. An adapter that reads no accounts (create_mint) leaves the pre-balance to a getBalance.
 */
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { ChainFacts } from "../chain/chainFacts.js"

export const withPreBalance = (facts: ChainFacts, chain: ChainClient, wallet: string) => {
  let preBalance: bigint | undefined
  const accounts: ChainFacts["accounts"] = (addresses) =>
    preBalance !== undefined
      ? facts.accounts(addresses)
      : Effect.map(facts.accounts([wallet, ...addresses]), ([walletAccount, ...rest]) => {
          // A wallet account that does not exist holds 0 lamports, as getBalance would say.
          preBalance = walletAccount?.lamports ?? 0n
          return rest
        })
  return {
    /** ChainFacts for the adapter: the same reads, the wallet's account added to the first. */
    facts: ChainFacts.make({ ...facts, accounts }),
    /** After the build: the pre-balance it read, or a getBalance when it read no accounts. */
    preBalance: Effect.suspend(() => (preBalance !== undefined ? Effect.succeed(preBalance) : chain.getBalance(wallet)))
  }
}
