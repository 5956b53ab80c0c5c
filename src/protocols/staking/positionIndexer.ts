/**
 * Confirmed position indexing for liquid staking (spec: Execution tuning): after a stake or unstake confirms,
 * the wallet's stake position becomes the LST balance its own transaction left (from the transaction's meta,
 * so a concurrent transfer of the wallet cannot disturb it). Indexing never fails the transaction.
 */
import { Cause, Effect } from "effect"
import type { LandedMeta } from "../../pipeline/submission.js"
import type { TransactionRow } from "../../pipeline/transactionRow.js"
import { PositionRepo } from "../../positions/positionRepo.js"

export const STAKE_POSITION_TYPE = "stake"

export class StakePositionIndexer extends Effect.Service<StakePositionIndexer>()("StakePositionIndexer", {
  dependencies: [PositionRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* PositionRepo

    const onConfirmed = (row: TransactionRow, meta: LandedMeta, walletPublicKey: string): Effect.Effect<void> => {
      if (row.protocol !== "liquid-staking" || (row.type !== "stake" && row.type !== "unstake")) return Effect.void
      const lstMint = row.type === "stake" ? row.build_facts?.outputMint : (row.build_facts?.tokenMint ?? undefined)
      if (lstMint === undefined) return Effect.logWarning("confirmed stake without its LST mint in the build facts", { txId: row.id })
      const held = (meta.postTokenBalances ?? []).find((b) => b.mint === lstMint && b.owner === walletPublicKey)
      return repo
        .set({
          tenantId: row.tenant_id, walletId: row.wallet_id, protocol: row.protocol, positionType: STAKE_POSITION_TYPE,
          token: lstMint, amount: BigInt(held?.uiTokenAmount.amount ?? "0"), txId: row.id
        })
        .pipe(Effect.catchAllCause((cause) => Effect.logWarning("stake position indexing failed", { txId: row.id }, Cause.pretty(cause))))
    }

    return { onConfirmed }
  })
}) {}
