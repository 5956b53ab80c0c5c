/** Read-only intents: answered from the ledger, confirmed with a `result`, no policy, no signing. */
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"

export class ReadOnlyIntents extends Effect.Service<ReadOnlyIntents>()("ReadOnlyIntents", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient

    const tokens = (owner: string) =>
      Effect.map(chain.tokenAccounts(owner), (accounts) =>
        accounts.map(({ mint, amount, decimals, tokenAccount }) => ({ mint, amount, decimals, tokenAccount }))
      )

    /** query_balance: lamports (and one mint's balance when `intent.mint` is given, else every token). */
    const queryBalance = (owner: string, intent: Record<string, unknown>) =>
      Effect.gen(function* () {
        const lamports = yield* chain.getBalance(owner)
        const held = yield* tokens(owner)
        const mint = typeof intent.mint === "string" ? intent.mint : undefined
        return {
          lamports,
          sol: Number(lamports) / 1e9,
          tokens: mint === undefined ? held : held.filter((t) => t.mint === mint)
        }
      })

    /** query_positions: what the wallet holds, as positions (native SOL and each token account). */
    const queryPositions = (owner: string) =>
      Effect.gen(function* () {
        const lamports = yield* chain.getBalance(owner)
        const held = yield* tokens(owner)
        return {
          positions: [
            { protocol: "system-program", type: "native", amount: lamports.toString(), token: "SOL" },
            ...held.map((t) => ({ protocol: "spl-token", type: "token", amount: t.amount, token: t.mint }))
          ]
        }
      })

    return { queryBalance, queryPositions }
  })
}) {}
