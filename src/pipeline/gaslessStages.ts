/**
 * Gasless submission (spec "Gasless submission"), the pipeline's side: the message is built with the
 * relay's fee payer, a gasless intent the relay cannot carry (account creation needing rent, token
 * account initialization, program deployment) is refused at `policy` before anything is signed, the
 * wallet signs as authority, the relay signs as fee payer and sends (Kora `signAndSendTransaction`),
 * and confirmation reads the standard RPC. Counts gasless_transaction_success_total,
 * gasless_transaction_failure_total and gasless_protocol_usage_total (also per protocol).
 */
import { PublicKey } from "@solana/web3.js"
import bs58 from "bs58"
import { Effect } from "effect"
import {
  GASLESS_PROTOCOL_USAGE_TOTAL,
  GASLESS_TRANSACTION_FAILURE_TOTAL,
  GASLESS_TRANSACTION_SUCCESS_TOTAL,
  gaslessProtocolUsageMetric
} from "../audit/metricNames.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { feeLamports, unsupportedForGasless } from "../gasless/gaslessRules.js"
import { GaslessQuota } from "./gaslessQuota.js"
import { splitWireTransaction, viewMessage } from "../protocols/messageView.js"
import { GaslessRelay, type RelayError } from "../gasless/relayClient.js"
import { attemptOf, Settlement } from "./settlement.js"
import type { RunContext } from "./runContext.js"
import { Retryable, Terminal } from "./stageFailure.js"
import { Submission } from "./submission.js"
import type { TransactionRow } from "./transactionRow.js"

const relayFailure = (failedAt: "build" | "send") => (error: RelayError): Effect.Effect<never, Retryable | Terminal> =>
  error.unavailable
    ? Effect.fail(new Retryable({ message: error.message, failedAt }))
    : Effect.fail(new Terminal({ failedAt, errorCode: "PIPELINE_ERROR", message: error.message, stage: failedAt }))

/** The relay's signature of an attempt, or its refusal to sign (the transaction then failed: nothing was sent). */
type RelaySignature = { readonly _tag: "Signed"; readonly signature: string } | { readonly _tag: "Refused"; readonly row: TransactionRow | undefined }

export class GaslessStages extends Effect.Service<GaslessStages>()("GaslessStages", {
  dependencies: [GaslessRelay.Default, GaslessQuota.Default, Submission.Default, Settlement.Default],
  effect: Effect.gen(function* () {
    const relay = yield* GaslessRelay
    const quotas = yield* GaslessQuota
    const submission = yield* Submission
    const settlement = yield* Settlement
    const metrics = yield* MetricCounters

    /**
     * Who pays the fee of the message being built: the relay's fee payer for a gasless intent (when a
     * relay is configured; without one the policy stage refuses it), else the wallet.
     */
    const feePayer = (row: TransactionRow, wallet: PublicKey) =>
      !row.gasless || !relay.configured ? Effect.succeed(wallet) : relay.feePayer.pipe(Effect.map((address) => new PublicKey(address)), Effect.catchAll(relayFailure("build")))

    /**
     * Why the relay would not carry this message (empty when it would, or when it is not gasless); when it
     * would, its fee is reserved from the tenant's daily quota of relayed fees (gaslessQuota.ts).
     */
    const admit = (row: TransactionRow, messageBase64: string) =>
      Effect.gen(function* () {
        if (!row.gasless) return []
        const view = viewMessage(Buffer.from(messageBase64, "base64"))
        const unsupported = unsupportedForGasless(view).map((reason) => `gasless: ${reason}`)
        if (unsupported.length > 0) return unsupported
        const fee = feeLamports(view)
        const quota = yield* quotas.reserve(row.id, row.tenant_id, fee)
        return quota.ok ? [] : [
          `gasless: tenant '${row.tenant_id}' has used ${quota.usedLamports} of its ${quota.quotaLamports} lamports of relayed fees for ${quota.utcDay} (UTC); ` +
          `this transaction's fee of ${fee} lamports would pass that quota (send it with gasless: false, or raise GASLESS_TENANT_DAILY_FEE_QUOTA_LAMPORTS or the tenant's entry in GASLESS_TENANT_FEE_QUOTAS)`
        ]
      })

    /**
     * The relay's fee-payer signature of this attempt (the transaction's id): logged before anything is
     * sent, from the relay's signTransaction, so the chain can always be asked about it (settlement.ts).
     */
    const relaySignature = (row: TransactionRow, lastValidBlockHeight: bigint) =>
      Effect.gen(function* () {
        const attempt = attemptOf(row)
        const logged = (yield* settlement.log.ofTransaction(row.id)).find((entry) => entry.attempt === attempt && entry.via === "relay")
        if (logged !== undefined) return { _tag: "Signed", signature: logged.signature } satisfies RelaySignature as RelaySignature
        const signed = yield* relay.signOnly(row.signed_transaction ?? "").pipe(Effect.either)
        if (signed._tag === "Left") {
          if (signed.left.unavailable) return yield* Effect.fail(new Retryable({ message: signed.left.message, failedAt: "send" }))
          // signTransaction sends nothing, and signAndSendTransaction was never called for this attempt.
          return { _tag: "Refused", row: yield* settlement.failUnsent(row, signed.left.message) } satisfies RelaySignature as RelaySignature
        }
        const signature = bs58.encode(splitWireTransaction(Buffer.from(signed.right, "base64")).signatures[0])
        yield* settlement.log.record(row.id, { signature, attempt, via: "relay", lastValidBlockHeight })
        return { _tag: "Signed", signature } satisfies RelaySignature as RelaySignature
      })

    /**
     * The relay signs and sends; the standard RPC confirms; post-checks read the wallet's own balances.
     * Once the wallet-signed bytes went to signAndSendTransaction they may be sent whatever the relay
     * answers, so a refusal leaves the transaction unresolved for the chain to settle (settlement.ts).
     */
    const submit = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        const lastValidBlockHeight = BigInt(row.last_valid_block_height ?? "0")
        const expected = yield* relaySignature(row, lastValidBlockHeight)
        if (expected._tag === "Refused") return expected.row
        const sent = yield* relay.signAndSend(row.signed_transaction ?? "").pipe(Effect.either)
        if (sent._tag === "Left") {
          if (sent.left.unavailable) return yield* Effect.fail(new Retryable({ message: sent.left.message, failedAt: "send" }))
          yield* settlement.leaveUnresolved(row, sent.left.message)
          return undefined
        }
        const { signature, signedTransaction } = sent.right
        // (a relay that signs differently each time: its answer names the transaction it sent)
        if (signature !== expected.signature) yield* settlement.log.record(row.id, { signature, attempt: attemptOf(row), via: "relay", lastValidBlockHeight })
        const outcome = yield* submission.submitAndConfirm(signature, signedTransaction, lastValidBlockHeight)
        const settled = yield* settlement.submitted(row, context, signature, outcome)
        if (settled?.status === "confirmed") {
          yield* metrics.increment(GASLESS_TRANSACTION_SUCCESS_TOTAL)
          yield* metrics.increment(GASLESS_PROTOCOL_USAGE_TOTAL)
          yield* metrics.increment(gaslessProtocolUsageMetric(row.protocol))
        }
        return settled
      })

    /** A gasless transaction that ended failed (refused at policy, by the relay, or on chain). */
    const countFailure = (row: TransactionRow | undefined) =>
      row !== undefined && row.gasless && row.status === "failed" ? metrics.increment(GASLESS_TRANSACTION_FAILURE_TOTAL) : Effect.void

    return { feePayer, admit, submit, countFailure }
  })
}) {}
