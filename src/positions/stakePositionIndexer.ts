/**
 * Confirmed position indexing for liquid staking (spec: Execution tuning): after a stake or unstake confirms,
 * the wallet's stake position becomes the LST balance its own transaction left (from the transaction's meta,
 * so a concurrent transfer of the wallet cannot disturb it), valued in lamports at the pool's rate read right
 * after confirmation (portfolio exposure uses that value). Indexing never fails the transaction.
 */
import { Cause, Effect } from "effect"
import { ChainFacts } from "../chain/chainFacts.js"
import type { ConfirmedMeta, ConfirmedTransaction } from "../protocols/confirmedTransaction.js"
import { typeFactsOf } from "../protocols/registry.js"
import { PositionRepo } from "./positionRepo.js"
import { readStakePool } from "../protocols/staking/poolReads.js"
import { LiquidStakingProgram } from "../protocols/staking/program.js"

export const STAKE_POSITION_TYPE = "stake"

export class StakePositionIndexer extends Effect.Service<StakePositionIndexer>()("StakePositionIndexer", {
  dependencies: [PositionRepo.Default, ChainFacts.Default, LiquidStakingProgram.Default],
  effect: Effect.gen(function* () {
    const repo = yield* PositionRepo
    const facts = yield* ChainFacts
    const program = yield* LiquidStakingProgram

    const index = (row: ConfirmedTransaction, meta: ConfirmedMeta, walletPublicKey: string, lstMint: string) =>
      Effect.gen(function* () {
        const held = (meta.postTokenBalances ?? []).find((b) => b.mint === lstMint && b.owner === walletPublicKey)
        const amount = BigInt(held?.uiTokenAmount.amount ?? "0")
        const pool = amount === 0n ? null : yield* readStakePool(facts.accounts, program, row.type)
        const valueLamports = pool === null || pool.lstSupply === 0n ? 0n : (amount * pool.state.totalLamports) / pool.lstSupply
        yield* repo.set({
          tenantId: row.tenant_id, walletId: row.wallet_id, protocol: row.protocol, positionType: STAKE_POSITION_TYPE,
          token: lstMint, amount, valueLamports, txId: row.id
        })
      })

    const onConfirmed = (row: ConfirmedTransaction, meta: ConfirmedMeta, walletPublicKey: string): Effect.Effect<void> => {
      // the operations that change a stake position say so in their facts, with where their build put the LST mint
      const indexing = typeFactsOf(row.type)?.positions
      if (row.protocol !== "liquid-staking" || indexing?.indexer !== "stakeToken") return Effect.void
      const lstMint = row.build_facts === null ? undefined : indexing.stakeTokenMint(row.build_facts)
      if (lstMint === undefined) return Effect.logWarning("confirmed stake without its LST mint in the build facts", { txId: row.id })
      return index(row, meta, walletPublicKey, lstMint).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("stake position indexing failed", { txId: row.id }, Cause.pretty(cause)))
      )
    }

    return { onConfirmed }
  })
}) {}
