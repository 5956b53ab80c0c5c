/**
 * Submission and confirmation: send the signed bytes with maxRetries 0, rebroadcast the SAME bytes
 * until the signature is confirmed or its blockhash expired, then read the status once more before
 * declaring failure. Never re-signs: a signed transaction either lands or provably cannot.
 */
import type { MetaTokenBalance } from "./tokenDeltaGuard.js"
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { Retryable, Terminal } from "./stageFailure.js"

/** What the post-checks need of a landed transaction's meta. */
export interface LandedMeta {
  readonly err: unknown
  readonly preBalances: ReadonlyArray<number>
  readonly postBalances: ReadonlyArray<number>
  readonly preTokenBalances?: ReadonlyArray<MetaTokenBalance> | null
  readonly postTokenBalances?: ReadonlyArray<MetaTokenBalance> | null
  readonly logMessages?: ReadonlyArray<string> | null
}

export type SubmissionOutcome =
  | { readonly landed: true; readonly meta: LandedMeta }
  | { readonly landed: false; readonly reason: string }

const REBROADCAST_MS = 2_000
const POLL_MS = 150

export class Submission extends Effect.Service<Submission>()("Submission", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient

    /** The landed transaction's meta at `confirmed`, or null while it has not landed (one read answers both). */
    const landedMeta = (signature: string) =>
      Effect.map(
        chain.rpc<{ meta: LandedMeta } | null>("getTransaction", [
          signature,
          { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }
        ]),
        (found) => found?.meta ?? null
      )

    const send = (signedTransaction: string) =>
      chain.rpc<string>("sendTransaction", [signedTransaction, { encoding: "base64", skipPreflight: true, maxRetries: 0 }]).pipe(
        Effect.asVoid,
        // An answer that refuses the bytes is not fatal by itself: the status read decides.
        Effect.catchTag("RpcApplicationError", (error) => Effect.logDebug(`sendTransaction refused: ${error.rpcMessage}`))
      )

    const blockHeight = chain.rpc<number>("getBlockHeight", [{ commitment: "confirmed" }])

    /**
     * Sends and waits (`onFirstSend` runs once the bytes first left); RPC outages surface as Retryable (the job comes back later with the same bytes).
     * Every round sends first and reads the status right after: on a resumed attempt whose bytes already
     * landed, the send is a rebroadcast the ledger deduplicates by signature, and the status read finds
     * it. The block height is read only while the transaction is not yet seen, so a transaction that
     * lands at once costs two RPC calls (send, then getTransaction, whose meta the post-checks use);
     * failure is declared only past the last valid block height and after a final status read.
     */
    const submitAndConfirm = (signature: string, signedTransaction: string, lastValidBlockHeight: bigint, onFirstSend: Effect.Effect<void> = Effect.void) =>
      Effect.gen(function* () {
        let lastSend = 0
        for (;;) {
          const rebroadcast = Date.now() - lastSend >= REBROADCAST_MS
          if (rebroadcast) {
            yield* send(signedTransaction)
            if (lastSend === 0) yield* onFirstSend
            lastSend = Date.now()
          }
          const meta = yield* landedMeta(signature)
          if (meta !== null) return { landed: true, meta } satisfies SubmissionOutcome
          if (rebroadcast) {
            const height = yield* blockHeight
            if (BigInt(height) > lastValidBlockHeight) {
              const final = yield* landedMeta(signature)
              if (final !== null) return { landed: true, meta: final } satisfies SubmissionOutcome
              return { landed: false, reason: `blockhash expired at block height ${lastValidBlockHeight} before the transaction was confirmed` } satisfies SubmissionOutcome
            }
          }
          yield* Effect.sleep(`${POLL_MS} millis`)
        }
      }).pipe(
        Effect.catchTag("RpcUnavailableError", (error) => Effect.fail(new Retryable({ message: error.message, failedAt: "send" }))),
        Effect.catchTag("RpcApplicationError", (error) =>
          Effect.fail(new Terminal({ failedAt: "send", errorCode: "PIPELINE_ERROR", message: error.message, stage: "send" }))
        )
      )

    return { submitAndConfirm }
  })
}) {}
