/**
 * Submission and confirmation: send the signed bytes with maxRetries 0, rebroadcast the SAME bytes
 * until the signature is confirmed or its blockhash expired, then ask the chain once more in a way
 * whose "no" can be trusted (chain/landing.ts) before answering "not landed". Never re-signs: a signed
 * transaction either lands or provably cannot. A chain error of any kind is Retryable here: once the
 * bytes may have left, only the chain decides the outcome (settlement.ts).
 */
import type { MetaTokenBalance } from "./tokenDeltaGuard.js"
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { SignatureLanding } from "../chain/landing.js"
import { Retryable } from "./stageFailure.js"

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
  /** Proven: the chain's block height is past `lastValidBlockHeight` and the signature is not on chain. */
  | { readonly landed: false; readonly lastValidBlockHeight: bigint; readonly blockHeight: bigint }

const REBROADCAST_MS = 2_000
const POLL_MS = 150

export class Submission extends Effect.Service<Submission>()("Submission", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const landing = yield* SignatureLanding

    /** The landed transaction's meta at `confirmed`, or null while it has not landed (one read answers both; a "no" here proves nothing). */
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
     * Waits until `signature` landed or provably cannot, sending `signedTransaction` every REBROADCAST_MS
     * when given (`onFirstSend` runs once the bytes first left). Every round sends first and reads the status right
     * after: on a resumed attempt whose bytes already landed, the send is a rebroadcast the ledger
     * deduplicates by signature, and the status read finds it. The block height is read only while the
     * transaction is not yet seen, so a transaction that lands at once costs two RPC calls (send, then
     * getTransaction, whose meta the post-checks use). Past the last valid block height the trusted
     * check (chain/landing.ts) decides; RPC failures surface as Retryable (the job comes back later with the same bytes).
     */
    const awaitLanding = (signature: string, lastValidBlockHeight: bigint, rebroadcast: { readonly signedTransaction: string; readonly onFirstSend: Effect.Effect<void> } | undefined) =>
      Effect.gen(function* () {
        let lastRound = 0
        let sent = false
        for (;;) {
          const round = Date.now() - lastRound >= REBROADCAST_MS
          if (round && rebroadcast !== undefined) {
            yield* send(rebroadcast.signedTransaction)
            if (!sent) yield* rebroadcast.onFirstSend
            sent = true
          }
          if (round) lastRound = Date.now()
          const meta = yield* landedMeta(signature)
          if (meta !== null) return { landed: true, meta } satisfies SubmissionOutcome as SubmissionOutcome
          if (round && BigInt(yield* blockHeight) > lastValidBlockHeight) {
            const settled = yield* landing.check<LandedMeta>([{ signature, lastValidBlockHeight }])
            if (settled._tag === "Landed") return { landed: true, meta: settled.meta } satisfies SubmissionOutcome as SubmissionOutcome
            if (settled._tag === "NotLanded") {
              return { landed: false, lastValidBlockHeight: settled.lastValidBlockHeight, blockHeight: settled.blockHeight } satisfies SubmissionOutcome as SubmissionOutcome
            }
          }
          yield* Effect.sleep(`${POLL_MS} millis`)
        }
      }).pipe(
        Effect.catchTags({
          RpcUnavailableError: (error) => Effect.fail(new Retryable({ message: error.message, failedAt: "confirm" })),
          RpcApplicationError: (error) => Effect.fail(new Retryable({ message: error.message, failedAt: "confirm" }))
        })
      )

    /** Sends the signed bytes and waits for the outcome (see awaitLanding). */
    const submitAndConfirm = (signature: string, signedTransaction: string, lastValidBlockHeight: bigint, onFirstSend: Effect.Effect<void> = Effect.void) =>
      awaitLanding(signature, lastValidBlockHeight, { signedTransaction, onFirstSend })

    /** Waits for the outcome of a transaction someone else sends (an x402 facilitator's settlement). */
    const confirm = (signature: string, lastValidBlockHeight: bigint) => awaitLanding(signature, lastValidBlockHeight, undefined)

    return { submitAndConfirm, confirm }
  })
}) {}
