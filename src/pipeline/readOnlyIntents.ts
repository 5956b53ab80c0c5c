/** Read-only intents: answered from the ledger, confirmed with a `result`, no policy, no signing. */
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { WalletPositions } from "../positions/walletPositions.js"

export class ReadOnlyIntents extends Effect.Service<ReadOnlyIntents>()("ReadOnlyIntents", {
  dependencies: [WalletPositions.Default],
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const walletPositions = yield* WalletPositions

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

    /** query_positions: native SOL, tokens, stake and escrow positions with their value (positions/walletPositions.ts). */
    const queryPositions = (tenantId: string, walletId: string, owner: string) => walletPositions.positionsOf(tenantId, walletId, owner)

    return { queryBalance, queryPositions }
  })
}) {}
