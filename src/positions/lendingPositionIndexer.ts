/**
 * Confirmed position indexing for the lending market (spec: Execution tuning; docs/decisions/lending.md): after a
 * lend_supply, lend_borrow, lend_withdraw or lend_repay confirms, the wallet's lending positions become what its obligation shows right
 * after confirmation: protocol 'lending-market', position_type 'supply' or 'borrow', token = the mint (wrapped
 * SOL's for SOL), amount in base units, value_lamports = worth at the oracle prices (positive for a borrow too:
 * it is a liability; 0 when a price is missing or stale: portfolio risk values lending positions at live prices, never
 * from this column). A position the obligation no longer holds (a full withdraw or repay) is removed. Indexing
 * never fails the transaction.
 */
import { PublicKey } from "@solana/web3.js"
import { Cause, Effect } from "effect"
import { ChainFacts } from "../chain/chainFacts.js"
import type { ConfirmedTransaction } from "../protocols/confirmedTransaction.js"
import { LENDING_PROTOCOL, readLendingView } from "../protocols/lending/obligationView.js"
import { LendingMarketProgram } from "../protocols/lending/program.js"
import { OracleFreshness } from "../protocols/oracle/oracleFreshness.js"
import { typeFactsOf } from "../protocols/registry.js"
import { PositionRepo } from "./positionRepo.js"

export class LendingPositionIndexer extends Effect.Service<LendingPositionIndexer>()("LendingPositionIndexer", {
  dependencies: [PositionRepo.Default, ChainFacts.Default, LendingMarketProgram.Default, OracleFreshness.Default],
  effect: Effect.gen(function* () {
    const repo = yield* PositionRepo
    const facts = yield* ChainFacts
    const program = yield* LendingMarketProgram
    const { maxAgeSeconds } = yield* OracleFreshness

    const index = (row: ConfirmedTransaction, walletPublicKey: string) =>
      Effect.gen(function* () {
        const now = BigInt(Math.floor(Date.now() / 1000))
        const view = yield* readLendingView(facts.accounts, program.programId, new PublicKey(walletPublicKey), now, maxAgeSeconds)
        const base = { tenantId: row.tenant_id, walletId: row.wallet_id, protocol: LENDING_PROTOCOL, txId: row.id }
        for (const position of view.positions) {
          yield* repo.set({ ...base, positionType: position.type, token: position.mint, amount: position.amount, valueLamports: position.valueLamports ?? 0n })
        }
        const held = new Set(view.positions.map((p) => `${p.type} ${p.mint}`))
        for (const stale of yield* repo.listForWallet(row.tenant_id, row.wallet_id)) {
          if (stale.protocol !== LENDING_PROTOCOL || held.has(`${stale.position_type} ${stale.token}`)) continue
          yield* repo.set({ ...base, positionType: stale.position_type, token: stale.token, amount: 0n, valueLamports: 0n })
        }
      })

    const onConfirmed = (row: ConfirmedTransaction, walletPublicKey: string): Effect.Effect<void> => {
      // the operations that change a wallet's obligation say so in their facts
      if (row.protocol !== LENDING_PROTOCOL || typeFactsOf(row.type)?.positions?.indexer !== "lendingObligation") return Effect.void
      return index(row, walletPublicKey).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("lending position indexing failed", { txId: row.id }, Cause.pretty(cause)))
      )
    }

    return { onConfirmed }
  })
}) {}
