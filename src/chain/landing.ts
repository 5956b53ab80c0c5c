/**
 * Did any of these signatures land? Asked of the chain so that a "no" can be trusted (issue 30): the
 * chain's tip (slot and block height) is read first, then the statuses (with searchTransactionHistory)
 * are taken only from an endpoint whose context slot is at least that tip's slot, so a lagging endpoint's
 * "not found" is never proof (the pool goes on to the next endpoint). A signature is "not landed" only
 * once the block height read from the chain is past its blockhash's last valid block height: from then
 * on no block can include it, and every block that could have is at or below the tip the statuses cover.
 */
import { Effect } from "effect"
import { ChainClient } from "./chainClient.js"

/**
 * A transaction that may have been broadcast, and the last block height at which it can land (null: no
 * such height, e.g. a durable nonce). Known by its signature (its id: the fee payer's), or, when another
 * party signed as fee payer and its answer was lost (a gasless relay, an x402 facilitator), by a
 * signature it carries: the wallet's own, among the transactions of the wallet's address since `since`.
 */
export type LandingCandidate =
  | { readonly signature: string; readonly lastValidBlockHeight: bigint | null }
  | { readonly carrier: Carrier; readonly lastValidBlockHeight: bigint | null }

export interface Carrier {
  readonly address: string
  readonly signature: string
  readonly since: Date
}

/** Entries of getSignaturesForAddress looked at when searching for a carried signature (newest first). */
const CARRIER_SEARCH_LIMIT = 1_000

export type Landing<M> =
  /** On chain at `confirmed` or better (with or without an error in `meta.err`). */
  | { readonly _tag: "Landed"; readonly signature: string; readonly slot: bigint; readonly meta: M }
  /** None landed, and none can any more: the chain's block height is past every last valid block height. */
  | { readonly _tag: "NotLanded"; readonly lastValidBlockHeight: bigint; readonly blockHeight: bigint }
  /** None landed yet, and one still could until block height `until` (null: no height bounds it). */
  | { readonly _tag: "Open"; readonly until: bigint | null; readonly blockHeight: bigint }

interface SignatureStatus {
  readonly slot: number
  readonly err: unknown
  readonly confirmations?: number | null
  readonly confirmationStatus?: string | null
}

interface StatusesAnswer {
  readonly context: { readonly slot: number }
  readonly value: ReadonlyArray<SignatureStatus | null>
}

const isStatusesAnswer = (value: unknown): value is StatusesAnswer =>
  typeof value === "object" && value !== null && "context" in value && "value" in value && Array.isArray((value as StatusesAnswer).value)

/** Confirmed or finalized (`confirmations: null` means rooted); a status seen only at `processed` may still be rolled back. */
const settledStatus = (status: SignatureStatus) =>
  status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized" || status.confirmations === null

export class SignatureLanding extends Effect.Service<SignatureLanding>()("SignatureLanding", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient

    /** The chain's tip at `confirmed`: its slot and block height, read together. */
    const tip = Effect.map(
      chain.rpc<{ absoluteSlot: number; blockHeight: number }>("getEpochInfo", [{ commitment: "confirmed" }]),
      (info) => ({ slot: BigInt(info.absoluteSlot), blockHeight: BigInt(info.blockHeight) })
    )

    /** Statuses from an endpoint at or past `minSlot` (any other endpoint's answer is refused as behind). */
    const statusesSince = (signatures: ReadonlyArray<string>, minSlot: bigint) =>
      chain.rpcTrusted<StatusesAnswer>("getSignatureStatuses", [signatures, { searchTransactionHistory: true }], (answer) =>
        !isStatusesAnswer(answer) || answer.value.length !== signatures.length
          ? "not a getSignatureStatuses answer"
          : BigInt(answer.context.slot) < minSlot
            ? `its context slot ${answer.context.slot} is behind slot ${minSlot}`
            : undefined
      )

    /** The landed transaction's meta, from an endpoint that has it (a lagging one may not yet). */
    const landedMeta = <M>(signature: string) =>
      Effect.map(
        chain.rpcTrusted<{ meta: M }>(
          "getTransaction",
          [signature, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
          (found) => (found === null || typeof found !== "object" ? "it does not have the landed transaction yet" : undefined)
        ),
        (found) => found.meta
      )

    /**
     * The id of the transaction carrying `carrier.signature` among the address's transactions since
     * `carrier.since` (a minute of clock skew allowed), from an endpoint at or past `minSlot`; undefined
     * when there is none there.
     */
    const findCarrying = (carrier: Carrier, minSlot: bigint) =>
      Effect.gen(function* () {
        const listed = yield* chain.rpcTrusted<ReadonlyArray<{ signature: string; blockTime: number | null }>>(
          "getSignaturesForAddress",
          [carrier.address, { limit: CARRIER_SEARCH_LIMIT, commitment: "confirmed", minContextSlot: Number(minSlot) }],
          (answer) => (Array.isArray(answer) ? undefined : "not a getSignaturesForAddress answer")
        )
        const sinceSeconds = Math.floor(carrier.since.getTime() / 1000) - 60
        for (const entry of listed) {
          if (entry.blockTime !== null && entry.blockTime < sinceSeconds) return undefined
          const found = yield* chain.rpcTrusted<{ transaction: { signatures: ReadonlyArray<string> } }>(
            "getTransaction",
            [entry.signature, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
            (answer) => (answer === null || typeof answer !== "object" ? "it does not have the listed transaction yet" : undefined)
          )
          if (found.transaction.signatures.includes(carrier.signature)) return entry.signature
        }
        return undefined
      })

    /**
     * What the chain says of `candidates` now (never waits): the first that landed with its meta, or
     * NotLanded once the block height is past every last valid block height, else Open.
     */
    const check = <M>(candidates: ReadonlyArray<LandingCandidate>) =>
      Effect.gen(function* () {
        const at = yield* tip
        const signatures: Array<string> = []
        for (const candidate of candidates) {
          if ("signature" in candidate) signatures.push(candidate.signature)
          else {
            const carrying = yield* findCarrying(candidate.carrier, at.slot)
            if (carrying !== undefined) signatures.push(carrying)
          }
        }
        const answer = signatures.length === 0 ? { value: [] } : yield* statusesSince(signatures, at.slot)
        let seenUnsettled = false
        for (const [index, status] of answer.value.entries()) {
          if (status === null) continue
          if (!settledStatus(status)) {
            seenUnsettled = true
            continue
          }
          const signature = signatures[index]
          const meta = yield* landedMeta<M>(signature)
          const landed: Landing<M> = { _tag: "Landed", signature, slot: BigInt(status.slot), meta }
          return landed
        }
        const heights = candidates.map((candidate) => candidate.lastValidBlockHeight)
        const until = heights.includes(null) ? null : heights.reduce<bigint>((max, height) => (height !== null && height > max ? height : max), 0n)
        const settled: Landing<M> =
          until !== null && at.blockHeight > until && !seenUnsettled
            ? { _tag: "NotLanded", lastValidBlockHeight: until, blockHeight: at.blockHeight }
            : { _tag: "Open", until, blockHeight: at.blockHeight }
        return settled
      })

    return { tip, check, landedMeta }
  })
}) {}
