/**
 * Gasless submission (spec "Gasless submission"), the pipeline's side: the message is built with the
 * relay's fee payer, a gasless intent the relay cannot carry (account creation needing rent, token
 * account initialization, program deployment) is refused at `policy` before anything is signed, the
 * wallet signs as authority, the relay signs as fee payer and sends (Kora `signAndSendTransaction`),
 * and confirmation reads the standard RPC. Counts gasless_transaction_success_total,
 * gasless_transaction_failure_total and gasless_protocol_usage_total (also per protocol).
 */
import { PublicKey } from "@solana/web3.js"
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
import { accountIndexOf, viewMessage } from "../protocols/messageView.js"
import { GaslessRelay, type RelayError } from "../gasless/relayClient.js"
import { PostChecks } from "./postChecks.js"
import type { RunContext } from "./runContext.js"
import { Retryable, Terminal } from "./stageFailure.js"
import { Submission } from "./submission.js"
import type { TransactionRow } from "./transactionRow.js"

const relayFailure = (failedAt: "build" | "send") => (error: RelayError): Effect.Effect<never, Retryable | Terminal> =>
  error.unavailable
    ? Effect.fail(new Retryable({ message: error.message, failedAt }))
    : Effect.fail(new Terminal({ failedAt, errorCode: "PIPELINE_ERROR", message: error.message, stage: failedAt }))

export class GaslessStages extends Effect.Service<GaslessStages>()("GaslessStages", {
  dependencies: [GaslessRelay.Default, GaslessQuota.Default],
  effect: Effect.gen(function* () {
    const relay = yield* GaslessRelay
    const quotas = yield* GaslessQuota
    const submission = yield* Submission
    const postChecks = yield* PostChecks
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

    /** The relay signs and sends; the standard RPC confirms; post-checks read the wallet's own balances. */
    const submit = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        const sent = yield* relay.signAndSend(row.signed_transaction ?? "").pipe(Effect.catchAll(relayFailure("send")))
        const outcome = yield* submission.submitAndConfirm(sent.signature, sent.signedTransaction, BigInt(row.last_valid_block_height ?? "0"))
        if (!outcome.landed) {
          return yield* Effect.fail(new Terminal({ failedAt: "confirm", errorCode: "CONFIRMATION_FAILED", message: outcome.reason, stage: "confirm" }))
        }
        if (outcome.meta.err !== null) {
          return yield* Effect.fail(
            new Terminal({ failedAt: "confirm", errorCode: "CONFIRMATION_FAILED", message: `transaction failed on chain: ${JSON.stringify(outcome.meta.err)}`, stage: "confirm" })
          )
        }
        const walletIndex = accountIndexOf(viewMessage(Buffer.from(row.message_base64 ?? "", "base64")), context.publicKey)
        const confirmed = yield* postChecks.confirmed(row, sent.signature, outcome.meta, context.deltaVarianceBpsThreshold, context.publicKey, {
          walletIndex: Math.max(walletIndex, 0),
          recordSignature: true
        })
        if (confirmed !== undefined) {
          yield* metrics.increment(GASLESS_TRANSACTION_SUCCESS_TOTAL)
          yield* metrics.increment(GASLESS_PROTOCOL_USAGE_TOTAL)
          yield* metrics.increment(gaslessProtocolUsageMetric(row.protocol))
        }
        return confirmed
      })

    /** A gasless transaction that ended failed (refused at policy, by the relay, or on chain). */
    const countFailure = (row: TransactionRow | undefined) =>
      row !== undefined && row.gasless && row.status === "failed" ? metrics.increment(GASLESS_TRANSACTION_FAILURE_TOTAL) : Effect.void

    return { feePayer, admit, submit, countFailure }
  })
}) {}
