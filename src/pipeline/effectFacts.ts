/**
 * The simulated effect a transaction recorded with its simulation (effectSimulation.ts), read back for
 * the policy stage, which may run in a later process than the simulation. A transaction other than a
 * message signing that has no readable effect is refused at policy (fail closed: an effect that cannot be
 * read is an effect that cannot be judged).
 *
 * For the types built from the caller's own instructions (cpi_call, custom_instruction_bundle) the
 * builder sees only the top-level System instructions, so policy's amount and destination come from the
 * effect when it shows more: SOL sent from inside another program counts against spending limits.
 */
import { Either, Schema } from "effect"
import { TransactionEffect } from "../../schemas/effect.js"
import { RAW_INSTRUCTION_TYPES } from "../protocols/rawInstructions.js"
import { analysedEffects } from "./effectSimulation.js"
import { SIGN_MESSAGE_TYPE } from "./signRequest.js"

const decodeEffect = Schema.decodeUnknownEither(TransactionEffect)

export type RecordedEffect =
  | { readonly kind: "effect"; readonly effect: TransactionEffect }
  | { readonly kind: "none" }
  | { readonly kind: "refused"; readonly reason: string }

/** The effect stored in `simulation.effect`, or why there is none to judge. */
export const recordedEffect = (type: string, simulation: unknown): RecordedEffect => {
  if (type === SIGN_MESSAGE_TYPE) return { kind: "none" }
  const recorded = typeof simulation === "object" && simulation !== null ? (simulation as Record<string, unknown>) : {}
  if (typeof recorded.effectError === "string") return { kind: "refused", reason: `the transaction's effect could not be read: ${recorded.effectError}` }
  if (recorded.effect === undefined) return { kind: "refused", reason: "no simulated effect is recorded for this transaction; retry it to simulate it again" }
  const analysed = typeof recorded.effect === "object" && recorded.effect !== null ? analysedEffects.get(recorded.effect) : undefined
  if (analysed !== undefined) return { kind: "effect", effect: analysed }
  const decoded = decodeEffect(recorded.effect)
  return Either.isRight(decoded) ? { kind: "effect", effect: decoded.right } : { kind: "refused", reason: "the recorded effect of this transaction cannot be read" }
}

/** SOL the wallet's own account sends, without the fee it pays as fee payer. */
const sentWithoutFee = (effect: TransactionEffect) => {
  const fee = effect.feePayer === effect.wallet ? effect.feeLamports : 0n
  return effect.solOutflowLamports > fee ? effect.solOutflowLamports - fee : 0n
}

/** Amount and destination as policy sees them: the builder's, or the effect's for raw instructions. */
export const spendFacts = (
  type: string,
  built: { readonly amountLamports: bigint | undefined; readonly destination: string | undefined },
  effect: TransactionEffect | undefined
): { readonly amountLamports: bigint | undefined; readonly destination: string | undefined } => {
  if (effect === undefined || !RAW_INSTRUCTION_TYPES.has(type)) return built
  const sent = sentWithoutFee(effect)
  const [only] = effect.recipients
  return {
    amountLamports: built.amountLamports === undefined || sent > built.amountLamports ? sent : built.amountLamports,
    destination: built.destination ?? (effect.recipients.length === 1 ? only?.address : undefined)
  }
}
