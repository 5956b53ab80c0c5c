/**
 * Turns an adapter's instructions into the exact message bytes that will be simulated and signed:
 * compute budget first (units by the spec's formula, price from recent prioritization fees), a
 * recent blockhash, the wallet as fee payer; extra signers (a new mint account) sign here, and only
 * their signatures are kept.
 */
import type { PublicKey, TransactionInstruction } from "@solana/web3.js"
import { createHash } from "node:crypto"
import bs58 from "bs58"
import { Data, Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { AppConfig } from "../config.js"
import type { BuiltTransaction } from "../protocols/builtTransaction.js"
import type { AdapterOperation } from "../protocols/transactionTypes.js"
import { withComputeBudget } from "./computeBudget.js"
import { keyFromSeed, signBytes } from "../wallet/ed25519.js"
import { priorityFeeMicroLamports, type RecentFeeSample } from "./priorityFee.js"
import { compileLegacyMessage } from "./wireTransaction.js"

/** The blockhash did not move on while an identical message was in flight (a retryable build failure). */
export class BlockhashStalled extends Data.TaggedError("BlockhashStalled")<{ readonly message: string }> {}

export interface CompiledMessage {
  readonly messageBase64: string
  readonly lastValidBlockHeight: bigint
  readonly extraSignatures: Record<string, string>
  readonly computeUnitLimit: number
  readonly priorityFeeMicroLamports: bigint
  readonly programIds: ReadonlyArray<string>
}

const CACHE_MS = 1_000

export class MessageBuilder extends Effect.Service<MessageBuilder>()("MessageBuilder", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const config = yield* AppConfig
    const feeConfig = {
      percentile: config.chain.priorityFeePercentile,
      multiplierBps: config.chain.priorityFeeMultiplierBps,
      minMicroLamports: BigInt(config.chain.priorityFeeMinMicroLamports),
      maxMicroLamports: BigInt(config.chain.priorityFeeMaxMicroLamports)
    }
    // Blockhash and fee samples change slowly compared to a burst of transactions: read them at most once a second.
    let blockhashCache: { at: number; blockhash: string; lastValidBlockHeight: number } | undefined
    let feeCache: { at: number; microLamports: bigint } | undefined

    const latestBlockhash = Effect.suspend(() =>
      blockhashCache !== undefined && Date.now() - blockhashCache.at < CACHE_MS
        ? Effect.succeed(blockhashCache)
        : Effect.map(
            chain.rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]),
            ({ value }) => (blockhashCache = { at: Date.now(), ...value })
          )
    )

    const priorityFee = Effect.suspend(() =>
      feeCache !== undefined && Date.now() - feeCache.at < CACHE_MS
        ? Effect.succeed(feeCache.microLamports)
        : Effect.map(chain.rpc<Array<RecentFeeSample>>("getRecentPrioritizationFees", [[]]), (samples) => {
            const microLamports = priorityFeeMicroLamports(samples, feeConfig)
            feeCache = { at: Date.now(), microLamports }
            return microLamports
          })
    )

    // Two identical intents (same wallet, destination and amount) built on one blockhash would be the same
    // bytes and so the same signature: the ledger would run only one. A message built in the last two
    // minutes is therefore never handed out again: the builder makes the next one distinct by its
    // compute-unit price (1 microlamport per compute unit more, or less at the configured maximum: at most
    // about one lamport of fee), so it need not wait for a new blockhash. Only when every nearby price is
    // taken (64 identical messages in flight) does it wait for the next blockhash.
    const recentMessages = new Map<string, number>()
    let prunedAt = Date.now()
    const claimMessage = (message: Buffer) => {
      const now = Date.now()
      // Forget old messages every 10 s (not on every build: under load the map holds thousands).
      if (now - prunedAt > 10_000) {
        for (const [key, at] of recentMessages) if (now - at > 120_000) recentMessages.delete(key)
        prunedAt = now
      }
      const key = createHash("sha256").update(message).digest("base64")
      if (recentMessages.has(key)) return false
      recentMessages.set(key, now)
      return true
    }

    /** Prices to try for a distinct message: the computed one first, then 1, 2, ... microlamports away within min-max. */
    const PRICE_VARIANTS = 64
    const priceVariants = (base: bigint): Array<bigint> => {
      const prices: Array<bigint> = [base]
      for (let k = 1n; prices.length < PRICE_VARIANTS && k < BigInt(PRICE_VARIANTS) * 2n; k++) {
        if (base + k <= feeConfig.maxMicroLamports) prices.push(base + k)
        else if (base - k >= feeConfig.minMicroLamports && base - k >= 0n) prices.push(base - k)
      }
      return prices
    }

    const uniqueMessage = (type: string, feePayer: PublicKey, built: BuiltTransaction, baseMicroLamports: bigint) =>
      Effect.gen(function* () {
        for (let attempt = 0; ; attempt++) {
          const { blockhash, lastValidBlockHeight } = yield* latestBlockhash
          for (const microLamports of priceVariants(baseMicroLamports)) {
            const { instructions, computeUnitLimit } = withComputeBudget(type as AdapterOperation, built.instructions, microLamports)
            const message = compileLegacyMessage(feePayer, blockhash, instructions)
            if (claimMessage(message)) return { message, lastValidBlockHeight, instructions, computeUnitLimit, microLamports }
          }
          if (attempt >= 50) return yield* new BlockhashStalled({ message: "the ledger's blockhash has not advanced for 5 s; identical transactions are still in flight" })
          blockhashCache = undefined
          yield* Effect.sleep("100 millis")
        }
      })

    const compile = (type: string, wallet: PublicKey, built: BuiltTransaction) =>
      Effect.gen(function* () {
        const { message, lastValidBlockHeight, instructions, computeUnitLimit, microLamports } = yield* uniqueMessage(type, wallet, built, yield* priorityFee)
        // The new accounts' ephemeral keys sign here (only their signatures are kept).
        const extraSignatures: Record<string, string> = {}
        for (const signer of built.extraSigners) {
          extraSignatures[signer.publicKey.toBase58()] = bs58.encode(signBytes(keyFromSeed(signer.secretKey.subarray(0, 32)), message))
        }
        return {
          messageBase64: message.toString("base64"),
          lastValidBlockHeight: BigInt(lastValidBlockHeight),
          extraSignatures,
          computeUnitLimit,
          priorityFeeMicroLamports: microLamports,
          // the adapter may name more programs than the instructions invoke directly (CPI targets of a cpi_call)
          programIds: [...new Set([...instructions.map((ix) => ix.programId.toBase58()), ...built.programIds])]
        } satisfies CompiledMessage
      })

    return { compile }
  })
}) {}
