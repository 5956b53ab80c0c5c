/**
 * What a transaction is worth when the policy engine decides it (issue 34 item 1): the lamports it moves plus
 * the tokens it moves (a transfer, a swap's input, a deposit) at the tokens' Pyth prices, in lamports and in
 * micro-USD at SOL's price, all read with the chain's clock in one read. Fails closed: a token without a feed,
 * a feed without a valid update, or a price older than ORACLE_MAX_PRICE_AGE_SECONDS answers `unavailable`
 * with the reason, never a guess.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Effect } from "effect"
import { ChainFacts, decodeMint } from "../chain/chainFacts.js"
import { OracleFreshness } from "../protocols/oracle/oracleFreshness.js"
import { readMintPrices } from "../protocols/oracle/oracleReads.js"
import { stalenessOf } from "../protocols/oracle/priceFreshness.js"
import { tokenLamports } from "../protocols/oracle/tokenLamports.js"

export interface ValueFacts {
  readonly amountLamports?: bigint | undefined
  readonly tokenMint?: string | undefined
  readonly tokenAmount?: bigint | undefined
}

export type TransactionValue =
  | { readonly _tag: "Valued"; readonly lamports: bigint; readonly microUsd: bigint }
  | { readonly _tag: "Unavailable"; readonly reason: string }

const SOL_MINT = NATIVE_MINT.toBase58()

/** lamports at SOL's USD price (price x 10^exponent), in micro-USD; floor. */
export const lamportsToMicroUsd = (lamports: bigint, sol: { readonly price: bigint; readonly exponent: number }): bigint => {
  const shift = sol.exponent + 6 - 9
  const scaled = lamports * sol.price
  return shift >= 0 ? scaled * 10n ** BigInt(shift) : scaled / 10n ** BigInt(-shift)
}

export class TransactionValuer extends Effect.Service<TransactionValuer>()("TransactionValuer", {
  dependencies: [ChainFacts.Default, OracleFreshness.Default],
  effect: Effect.gen(function* () {
    const facts = yield* ChainFacts
    const { maxAgeSeconds } = yield* OracleFreshness

    const valueOf = (value: ValueFacts) =>
      Effect.gen(function* () {
        const lamports = value.amountLamports ?? 0n
        // wrapped SOL moved as a token is already in the lamports (a swap or a deposit from SOL)
        const token = value.tokenMint !== undefined && value.tokenMint !== SOL_MINT && (value.tokenAmount ?? 0n) > 0n ? value.tokenMint : undefined
        const mints = token === undefined ? [SOL_MINT] : [SOL_MINT, token]
        const [prices, mintAccounts] = yield* Effect.all(
          [readMintPrices(facts.accounts, mints), token === undefined ? Effect.succeed([]) : facts.accounts([token])],
          { concurrency: "unbounded" }
        )
        const quotes: Array<{ price: bigint; exponent: number }> = []
        for (const [index, mint] of mints.entries()) {
          const price = prices[index]
          if (price === null || price === undefined) return { _tag: "Unavailable", reason: `no oracle price for mint ${mint}` } as TransactionValue
          const stale = stalenessOf(price, maxAgeSeconds)
          if (stale !== null) return { _tag: "Unavailable", reason: stale.message } as TransactionValue
          quotes.push({ price: price.update.price, exponent: price.update.exponent })
        }
        const sol = quotes[0]!
        let total = lamports
        if (token !== undefined) {
          const account = mintAccounts[0]
          if (account === null || account === undefined || account.data.length < 45) return { _tag: "Unavailable", reason: `mint ${token} cannot be read` } as TransactionValue
          total += tokenLamports(value.tokenAmount ?? 0n, decodeMint(Buffer.from(account.data)).decimals, quotes[1]!, sol)
        }
        return { _tag: "Valued", lamports: total, microUsd: lamportsToMicroUsd(total, sol) } as TransactionValue
      }).pipe(
        Effect.catchAll((error) => Effect.succeed<TransactionValue>({ _tag: "Unavailable", reason: `oracle prices could not be read: ${error.message}` })),
        Effect.withSpan("TransactionValuer.valueOf")
      )

    return { valueOf }
  })
}) {}
