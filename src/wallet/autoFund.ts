/**
 * Funding of a new wallet: the ledger's airdrop, or a transfer from WALLET_AUTOFUND_PAYER_PRIVATE_KEY
 * when one is configured (a real cluster without a faucet). Waits until the funds are confirmed.
 * Either way the tenant's daily cap applies (autoFundCap.ts): `reserve` before the wallet exists.
 */
import { SqlClient } from "@effect/sql"
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import bs58 from "bs58"
import { Duration, Effect, Option, Redacted, Schedule } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { AppConfig } from "../config.js"
import { makeAutoFundCap } from "./autoFundCap.js"

export interface FundingResult {
  readonly ok: boolean
  readonly lamports: bigint
  readonly signature?: string
  readonly method: "airdrop" | "payer-transfer"
  readonly error?: string
}

/** The payer key may be given as base58 (64-byte secret key) or as a JSON byte array (solana-keygen). */
const parsePayer = (raw: string): Keypair => {
  const text = raw.trim()
  const bytes = text.startsWith("[") ? Uint8Array.from(JSON.parse(text) as Array<number>) : bs58.decode(text)
  return Keypair.fromSecretKey(bytes)
}

export class AutoFunder extends Effect.Service<AutoFunder>()("AutoFunder", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const chain = yield* ChainClient
    const cap = makeAutoFundCap(yield* SqlClient.SqlClient, BigInt(config.wallet.autofundDailyCapLamports))
    const payer = Option.map(config.wallet.autofundPayerPrivateKey, (secret) => {
      try {
        return parsePayer(Redacted.value(secret))
      } catch {
        return null
      }
    }).pipe(Option.getOrNull)
    if (Option.isSome(config.wallet.autofundPayerPrivateKey) && payer === null) {
      yield* Effect.logWarning("WALLET_AUTOFUND_PAYER_PRIVATE_KEY could not be parsed; auto-funding falls back to airdrop")
    }

    const waitConfirmed = (signature: string) =>
      chain
        .rpc<{ value: Array<{ err: unknown; confirmationStatus?: string } | null> }>("getSignatureStatuses", [
          [signature],
          { searchTransactionHistory: true }
        ])
        .pipe(
          Effect.flatMap(({ value: [status] }) =>
            status === null || status === undefined
              ? Effect.fail("not yet" as const)
              : status.err !== null
                ? Effect.die(new Error(`funding transaction failed: ${JSON.stringify(status.err)}`))
                : Effect.void
          ),
          Effect.retry({ while: (e) => e === "not yet", schedule: Schedule.spaced(Duration.millis(200)), times: 150 })
        )

    const viaAirdrop = (destination: string, lamports: bigint) =>
      Effect.gen(function* () {
        const signature = yield* chain.rpc<string>("requestAirdrop", [destination, Number(lamports)])
        yield* waitConfirmed(signature)
        return signature
      })

    const viaPayer = (keypair: Keypair, destination: string, lamports: bigint) =>
      Effect.gen(function* () {
        const { value } = yield* chain.rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
          "getLatestBlockhash",
          [{ commitment: "confirmed" }]
        )
        const transaction = new Transaction({ feePayer: keypair.publicKey, recentBlockhash: value.blockhash }).add(
          SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: new PublicKey(destination), lamports })
        )
        transaction.sign(keypair)
        const wire = transaction.serialize().toString("base64")
        const signature = yield* chain.rpc<string>("sendTransaction", [wire, { encoding: "base64" }])
        yield* waitConfirmed(signature)
        return signature
      })

    const fund = (destination: string, lamports: bigint): Effect.Effect<FundingResult> => {
      const method = payer === null ? "airdrop" : "payer-transfer"
      const attempt = payer === null ? viaAirdrop(destination, lamports) : viaPayer(payer, destination, lamports)
      return attempt.pipe(
        Effect.map((signature): FundingResult => ({ ok: true, lamports, signature, method })),
        Effect.catchAllCause((cause) =>
          Effect.succeed<FundingResult>({
            ok: false,
            lamports,
            method,
            error: `funding failed: ${cause._tag === "Fail" ? String((cause.error as { message?: string }).message ?? cause.error) : cause._tag === "Die" ? String((cause.defect as Error).message) : "interrupted"}`
          })
        )
      )
    }

    return { fund, reserve: cap.reserve, release: cap.release, defaultLamports: BigInt(config.wallet.autofundDefaultLamports) }
  })
}) {}
