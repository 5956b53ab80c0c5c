/**
 * The pipeline's client of the fee-payer relay at GASLESS_RPC_URL (Kora JSON-RPC): the relay's fee
 * payer (getPayerSigner, remembered once read), signTransaction and signAndSendTransaction of a
 * transaction the wallet has signed as authority. An unreachable relay is `unavailable` (the job retries); a refusal is not.
 */
import { Data, Effect, Option, Redacted } from "effect"
import { AppConfig } from "../config.js"

export class RelayError extends Data.TaggedError("RelayError")<{ readonly message: string; readonly unavailable: boolean }> {}

const TIMEOUT_MS = 15_000

export class GaslessRelay extends Effect.Service<GaslessRelay>()("GaslessRelay", {
  effect: Effect.gen(function* () {
    const { gaslessRpcUrl: url, gaslessRpcApiKey: apiKey } = (yield* AppConfig).chain
    // Kora's authentication header: our local relay demands it (src/gasless/relayApiKey.ts), a real Kora may.
    const headers = { "content-type": "application/json", ...Option.match(apiKey, { onNone: () => ({}), onSome: (key) => ({ "x-api-key": Redacted.value(key) }) }) }
    let payer: string | undefined
    let id = 0

    const call = <A>(method: string, params?: Record<string, unknown>) =>
      Effect.gen(function* () {
        if (Option.isNone(url)) return yield* new RelayError({ message: "GASLESS_RPC_URL is not configured", unavailable: false })
        const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method, ...(params === undefined ? {} : { params }) })
        const reply = yield* Effect.tryPromise({
          try: async () => {
            const response = await fetch(url.value, { method: "POST", headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) })
            return (await response.json()) as { result?: A; error?: { code?: number; message?: string } }
          },
          catch: (error) => new RelayError({ message: `gasless relay unreachable: ${(error as Error).message}`, unavailable: true })
        })
        if (reply.error !== undefined) {
          return yield* new RelayError({ message: `gasless relay refused ${method}: ${reply.error.message ?? "error"}`, unavailable: false })
        }
        if (reply.result === undefined) return yield* new RelayError({ message: `gasless relay answered ${method} without a result`, unavailable: true })
        return reply.result
      })

    /** The relay's fee payer address (it pays every gasless transaction's fee). */
    const feePayer = Effect.suspend(() =>
      payer !== undefined
        ? Effect.succeed(payer)
        : Effect.map(call<{ signer_address: string }>("getPayerSigner"), (result) => (payer = result.signer_address))
    )

    /**
     * The relay signs as fee payer without sending (Kora `signTransaction`): its signature is the
     * transaction's id, known before anything is sent (Ed25519 signs the same message the same way, so
     * signAndSendTransaction sends exactly this transaction).
     */
    const signOnly = (transactionBase64: string) =>
      Effect.map(call<{ signed_transaction: string }>("signTransaction", { transaction: transactionBase64 }), (result) => result.signed_transaction)

    /** Hands the wallet-signed transaction to the relay, which signs as fee payer and sends it. */
    const signAndSend = (transactionBase64: string) =>
      Effect.map(call<{ signature: string; signed_transaction: string }>("signAndSendTransaction", { transaction: transactionBase64 }), (result) => ({
        signature: result.signature,
        signedTransaction: result.signed_transaction
      }))

    return { feePayer, signOnly, signAndSend, configured: Option.isSome(url) }
  })
}) {}
