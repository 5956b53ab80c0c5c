/**
 * The build and simulate stages of a signing request (POST /wallets/<id>/sign): nothing is built, the
 * caller's bytes are the message. A transaction is simulated for its whole effect (effectSimulation.ts:
 * every account it can write read before and after, its inner instructions decoded); its policy facts
 * (program ids, outflows, destination) come from that effect, which policy also judges whole; a message
 * becomes its off-chain message bytes. Either way the result goes to the ordinary policy stage, then to
 * the signer, which signs exactly the recorded bytes.
 */
import { Data, Effect, Schema } from "effect"
import { TransactionEffect } from "../../schemas/effect.js"
import type { ChainError } from "../chain/chainClient.js"
import { analysedEffects, EffectSimulation } from "./effectSimulation.js"
import type { Unwritten } from "./stageTransitions.js"
import type { TransactionRow } from "./transactionRow.js"
import { decodeTransactionToSign, offChainMessages, SIGN_MESSAGE_TYPE } from "./signRequest.js"
import { signOnlyFacts } from "./signOnlyFacts.js"
import type { BuildFactsRow } from "./transactionRow.js"

export type PreparedSignRequest =
  | { readonly kind: "ready"; readonly unwritten: Unwritten }
  | { readonly kind: "simulationFailed"; readonly fields: Unwritten["fields"]; readonly simulation: { readonly error: string } }
  | { readonly kind: "refused"; readonly message: string; readonly unwritten: Unwritten }

/** The recorded request cannot be signed as it is (bad bytes, a message that is a transaction). */
export class SignInputRefused extends Data.TaggedError("SignInputRefused")<{ readonly message: string }> {}

const decodeEffect = Schema.decodeSync(TransactionEffect)

const at = () => new Date().toISOString()

const facts = (fields: Partial<BuildFactsRow> & { programIds: ReadonlyArray<string> }): BuildFactsRow => ({
  destination: null, tokenMint: null, amountLamports: null, tokenAmount: null, computeUnitLimit: 0, priorityFeeMicroLamports: "0", ...fields
})

export class SignOnly extends Effect.Service<SignOnly>()("SignOnly", {
  dependencies: [EffectSimulation.Default],
  effect: Effect.gen(function* () {
    const effects = yield* EffectSimulation

    /** A message's off-chain message bytes, ready for policy. */
    const prepareMessage = (bytes: Uint8Array): PreparedSignRequest => ({
      kind: "ready",
      unwritten: {
        fields: { messageBase64: Buffer.from(bytes).toString("base64"), extraSignatures: {}, buildFacts: facts({ programIds: [], amountLamports: "0" }) },
        via: [{ status: "simulating", stage: "build", eventType: "transaction.built", message: "off-chain message prepared", at: at() }]
      }
    })

    const prepareTransaction = (row: TransactionRow, wallet: string) =>
      Effect.gen(function* () {
        const request = decodeTransactionToSign(String(row.intent.transaction ?? ""))
        const simulated = yield* effects.simulate(wallet, request.messageBase64, request.extraSignatures)
        const units = simulated.unitsConsumed === undefined ? {} : { unitsConsumed: simulated.unitsConsumed }
        const built = {
          preBalanceLamports: simulated.walletLamportsBefore,
          messageBase64: request.messageBase64,
          extraSignatures: request.extraSignatures
        }
        if (!simulated.ok) {
          const simulation = { ok: false as const, logs: simulated.logs, ...units, error: JSON.stringify(simulated.err) }
          return { kind: "simulationFailed", fields: { ...built, buildFacts: facts({ programIds: request.programIds }) }, simulation } satisfies PreparedSignRequest
        }
        const simulation = { ok: true as const, logs: simulated.logs, ...units, ...("effect" in simulated ? { effect: simulated.effect } : { effectError: simulated.effectError }) }
        const via = [
          { status: "simulating", stage: "build", eventType: "transaction.built", message: `transaction to sign: ${request.programIds.length} program(s)`, at: at() },
          { status: "policy_eval", stage: "policy", eventType: "transaction.simulated", message: "simulation ok", at: at() }
        ] as const
        const refused = (message: string): PreparedSignRequest =>
          ({ kind: "refused", message, unwritten: { fields: { ...built, buildFacts: facts({ programIds: request.programIds }), simulation }, via } })
        if (!("effect" in simulated)) return refused(`the transaction's effect could not be read: ${simulated.effectError}`)
        const derived = signOnlyFacts(analysedEffects.get(simulated.effect) ?? decodeEffect(simulated.effect))
        if ("refused" in derived) return refused(derived.refused)
        const buildFacts = facts({
          programIds: request.programIds,
          destination: derived.destination ?? null,
          tokenMint: derived.tokenMint ?? null,
          amountLamports: derived.amountLamports.toString(),
          tokenAmount: derived.tokenAmount?.toString() ?? null
        })
        return { kind: "ready", unwritten: { fields: { ...built, buildFacts, simulation }, via } } satisfies PreparedSignRequest
      })

    /** Fails with a message naming the input when the recorded request cannot be read (it was checked at the route). */
    const prepare = (row: TransactionRow, wallet: string): Effect.Effect<PreparedSignRequest, ChainError | SignInputRefused> =>
      row.type === SIGN_MESSAGE_TYPE
        ? Effect.flatMap(offChainMessages, ({ offChainMessageBytes }) =>
            Effect.try({
              try: () => prepareMessage(offChainMessageBytes(String(row.intent.message ?? ""), wallet)),
              catch: (error) => new SignInputRefused({ message: error instanceof Error ? error.message : String(error) })
            }))
        : Effect.suspend(() => prepareTransaction(row, wallet)).pipe(
            Effect.catchAllDefect((defect) => Effect.fail(new SignInputRefused({ message: defect instanceof Error ? defect.message : String(defect) })))
          )

    return { prepare }
  })
}) {}
