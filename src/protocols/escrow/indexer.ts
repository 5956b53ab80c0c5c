/**
 * Position indexing for escrow (spec: Execution tuning, "escrow operations upsert the escrow record";
 * Events rule 4): after an escrow transaction confirms, decode the program's ledger events from the
 * transaction's logs, refresh each touched escrow's record from its on-chain state, and write one
 * audit event per ledger event (`escrow.EscrowCreated` ...) carrying the escrow id.
 */
import { Cause, Data, Effect, Schedule } from "effect"
import { AuditLog } from "../../audit/auditLog.js"
import { ChainClient } from "../../chain/chainClient.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import type { ConfirmedTransaction } from "../confirmedTransaction.js"
import { escrowAccountFact } from "./buildWithChain.js"
import { EscrowRepo } from "./escrowRepo.js"
import { auditEventOf, operationOf } from "./eventAudit.js"
import { decodeEscrowEvents, type EscrowEvent } from "./events.js"
import { EscrowProgram } from "./program.js"

interface TransactionLogs {
  readonly meta: { readonly logMessages?: ReadonlyArray<string> | null } | null
}

class TransactionNotFound extends Data.TaggedError("TransactionNotFound")<{ readonly message: string }> {}

const reasonOf = (cause: Cause.Cause<unknown>) => {
  const squashed = Cause.squash(cause)
  return squashed instanceof Error ? squashed.message : String(squashed)
}

export class EscrowIndexer extends Effect.Service<EscrowIndexer>()("EscrowIndexer", {
  dependencies: [EscrowRepo.Default, EscrowProgram.Default, ChainFacts.Default],
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const facts = yield* ChainFacts
    const audit = yield* AuditLog
    const repo = yield* EscrowRepo
    const program = yield* EscrowProgram

    // A real cluster's RPC node may not serve a just-confirmed transaction yet: retry briefly.
    const logsOf = (signature: string) =>
      chain
        .rpc<TransactionLogs | null>("getTransaction", [signature, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }])
        .pipe(
          Effect.flatMap((tx) =>
            tx === null ? Effect.fail(new TransactionNotFound({ message: `transaction ${signature} not found` })) : Effect.succeed(tx.meta?.logMessages ?? [])
          ),
          Effect.retry({ schedule: Schedule.spaced("500 millis"), times: 4 })
        )

    /** Refreshes the record of every escrow the events touched; `state` is the last operation on it. */
    const upsertRecords = (row: ConfirmedTransaction, signature: string, events: ReadonlyArray<EscrowEvent>) =>
      Effect.gen(function* () {
        const lastByEscrow = new Map<string, EscrowEvent>()
        for (const event of events) lastByEscrow.set(event.fields.escrow.toBase58(), event)
        const addresses = [...lastByEscrow.keys()]
        const accounts = yield* facts.accounts(addresses)
        for (const [i, address] of addresses.entries()) {
          const fact = escrowAccountFact(accounts[i] ?? null, program.programId)
          const last = lastByEscrow.get(address)
          if (fact.kind !== "escrow" || last === undefined) {
            yield* Effect.logWarning("escrow account not readable after confirmation", { address, txId: row.id })
            continue
          }
          yield* repo.upsert({
            tenantId: row.tenant_id, walletId: row.wallet_id, escrowAddress: address, programId: program.programId.toBase58(),
            operation: operationOf(last), state: fact.state, txId: row.id, signature
          })
        }
      })

    const index = (row: ConfirmedTransaction, signature: string) =>
      Effect.gen(function* () {
        const events = decodeEscrowEvents(yield* logsOf(signature), program.programId)
        if (events.length === 0) return yield* Effect.logWarning("confirmed escrow transaction without escrow events", { txId: row.id, signature })
        yield* upsertRecords(row, signature, events)
        for (const event of events) {
          const entry = auditEventOf(event, signature)
          yield* audit.record({
            tenantId: row.tenant_id, eventType: entry.eventType, message: entry.message, metadata: entry.metadata,
            txId: row.id, walletId: row.wallet_id, agentId: row.agent_id, protocol: "escrow", escrowId: entry.escrowId,
            entityType: "escrow", category: "escrow"
          })
        }
      })

    /**
     * Called by the pipeline once a transaction is confirmed. Indexing never fails the transaction (it
     * is on chain already): a failure is logged and recorded as `escrow.index_failed` for operators.
     */
    const onConfirmed = (row: ConfirmedTransaction, signature: string): Effect.Effect<void> =>
      row.protocol !== "escrow"
        ? Effect.void
        : index(row, signature).pipe(
            Effect.catchAllCause((cause) =>
              Effect.zipRight(
                Effect.logWarning("escrow indexing failed", { txId: row.id, signature }, Cause.pretty(cause)),
                audit.record({
                  tenantId: row.tenant_id, eventType: "escrow.index_failed", message: `escrow indexing of transaction ${row.id} failed: ${reasonOf(cause)}`,
                  metadata: { signature }, txId: row.id, walletId: row.wallet_id, protocol: "escrow", entityType: "escrow", category: "escrow"
                })
              )
            ),
            Effect.withSpan("EscrowIndexer.onConfirmed")
          )

    return { onConfirmed }
  })
}) {}
