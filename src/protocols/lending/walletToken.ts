/** The wallet's associated token account of a mint, read through the pipeline's chain facts. */
import { getAssociatedTokenAddressSync } from "@solana/spl-token"
import type { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"

/** The wallet's token account of `mint`, whether it exists, and its balance. */
export const walletTokenAccount = (wallet: PublicKey, mint: PublicKey) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const address = getAssociatedTokenAddressSync(mint, wallet)
    const [account] = yield* facts.accounts([address.toBase58()])
    const exists = account !== null && account !== undefined
    return { address, exists, balance: exists && account.data.length >= 72 ? account.data.readBigUInt64LE(64) : 0n }
  })
