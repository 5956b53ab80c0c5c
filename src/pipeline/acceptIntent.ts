/**
 * Decoding of a transaction request: the body by its schema, then the intent by its type's payload
 * schema (errors read `intent.lamports: ...`), re-encoded so the stored intent is canonical (defaults
 * filled in, amounts as the schema writes them).
 */
import { Effect, Schema } from "effect"
import { IntentPayloads, type TransactionType } from "../../schemas/intent.js"
import { CreateTransactionBody } from "../../schemas/transaction.js"
import { decodeWith, validationErrorFrom } from "../gateway/request.js"

export const decodeIntent = (type: TransactionType, intent: unknown) => {
  const schema = IntentPayloads[type] as Schema.Schema<unknown, unknown, never>
  return Effect.gen(function* () {
    const decoded = yield* decodeWith(schema, intent, "intent")
    return yield* Schema.encode(schema)(decoded).pipe(Effect.mapError((error) => validationErrorFrom(error, "intent")))
  })
}

export const decodeTransactionRequest = (body: unknown) =>
  Effect.gen(function* () {
    const request = yield* decodeWith(CreateTransactionBody, body)
    const intent = (yield* decodeIntent(request.type, request.intent)) as Record<string, unknown>
    return { ...request, intent }
  })
export type AcceptedRequest = Effect.Effect.Success<ReturnType<typeof decodeTransactionRequest>>
