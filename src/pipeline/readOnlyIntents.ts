/** Read-only intents: answered from the ledger, confirmed with a `result`, no policy, no signing. */
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"

interface ParsedTokenAccount {
  readonly pubkey: string
  readonly account: { readonly data: { readonly parsed: { readonly info: { readonly mint: string; readonly tokenAmount: { amount: string; decimals: number } } } } }
}

const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

export class ReadOnlyIntents extends Effect.Service<ReadOnlyIntents>()("ReadOnlyIntents", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient

    const tokens = (owner: string) =>
      Effect.map(
        chain.rpc<{ value: Array<ParsedTokenAccount> }>("getTokenAccountsByOwner", [owner, { programId: TOKEN_PROGRAM }, { encoding: "jsonParsed", commitment: "confirmed" }]),
        ({ value }) =>
          value.map((entry) => ({
            mint: entry.account.data.parsed.info.mint,
            amount: entry.account.data.parsed.info.tokenAmount.amount,
            decimals: entry.account.data.parsed.info.tokenAmount.decimals,
            tokenAccount: entry.pubkey
          }))
      )

    /** query_balance: lamports (and one mint's balance when `intent.mint` is given, else every token). */
    const queryBalance = (owner: string, intent: Record<string, unknown>) =>
      Effect.gen(function* () {
        const lamports = yield* chain.getBalance(owner)
        const held = yield* tokens(owner)
        const mint = typeof intent.mint === "string" ? intent.mint : undefined
        return {
          lamports: lamports.toString(),
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
