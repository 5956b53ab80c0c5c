/**
 * The facts of cpi_call and custom_instruction_bundle, the caller's own instructions built for any protocol
 * named (docs/decisions/instruction-bundles.md): they run arbitrary programs, so the spec rates them critical.
 */
import { req } from "./intentRequirements.js"
import { rawIntentSystemOutflow } from "./rawInstructions.js"
import type { TypeFacts } from "./typeFacts.js"

export const rawInstructionFacts = {
  // the SOL their System transfers send
  cpi_call: {
    computeUnitBase: 400_000, riskTier: "critical", spendLamports: (intent) => rawIntentSystemOutflow([intent]),
    intentFields: { programId: req("address"), accounts: req("array"), data: req("string") }
  },
  custom_instruction_bundle: {
    computeUnitBase: 400_000, riskTier: "critical",
    spendLamports: (intent) => (Array.isArray(intent.instructions) ? rawIntentSystemOutflow(intent.instructions) : 0n),
    intentFields: { instructions: req("array") }
  }
} as const satisfies Readonly<Record<string, TypeFacts>>
