/**
 * What a fee-payer relay will not pay for, pure over a message view. Shared by the relay (it refuses
 * such a transaction) and the pipeline (it refuses a gasless intent at `policy` before anything is
 * signed): the spec's unsupported cases (program deployments, account creations that need a rent
 * deposit, token account initialization), Kora's allowed programs and maximum fee, and a fee payer
 * that must only pay the fee (never appear in an instruction: no transfer, close or authority use).
 */
import { messageFeeLamports, type MessageView } from "../protocols/messageView.js"
import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM_ID,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM_ID,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM
} from "../protocols/programIds.js"

export { MEMO_PROGRAM, MEMO_V1_PROGRAM, TOKEN_2022_PROGRAM }
/** Lamports the fee payer pays (messageView.ts). */
export const feeLamports = messageFeeLamports
const LOADERS = new Set([
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "LoaderV411111111111111111111111111111111111"
])

/** The relay's programs by default: transfers, token transfers, compute budget and memos. */
export const DEFAULT_ALLOWED_PROGRAMS: ReadonlyArray<string> = [SYSTEM_PROGRAM_ID, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, COMPUTE_BUDGET_PROGRAM_ID, MEMO_PROGRAM, MEMO_V1_PROGRAM]

/** System program instructions that create an account (rent deposit): CreateAccount, CreateAccountWithSeed. */
const SYSTEM_CREATES = new Set([0, 3])
/** SPL Token instructions that initialize a token account or mint: InitializeMint(2), InitializeAccount(2,3), InitializeMultisig(2). */
const TOKEN_INITS = new Set([0, 1, 2, 16, 18, 19, 20])

const u32 = (data: Buffer) => (data.length >= 4 ? data.readUInt32LE(0) : -1)

/** The spec's unsupported cases for gasless submission, one reason each (empty: supported). */
export const unsupportedForGasless = (view: MessageView): Array<string> => {
  const reasons: Array<string> = []
  for (const [i, ix] of view.instructions.entries()) {
    if (LOADERS.has(ix.programId)) reasons.push(`instruction ${i} deploys or changes a program`)
    else if (ix.programId === SYSTEM_PROGRAM_ID && SYSTEM_CREATES.has(u32(ix.data))) reasons.push(`instruction ${i} creates an account that needs a rent deposit`)
    else if (ix.programId === ASSOCIATED_TOKEN_PROGRAM) reasons.push(`instruction ${i} creates an associated token account (token account initialization)`)
    else if ((ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM) && TOKEN_INITS.has(ix.data[0] ?? -1)) {
      reasons.push(`instruction ${i} initializes a token account or mint`)
    }
  }
  return reasons
}

export interface RelayLimits {
  readonly feePayer: string
  readonly allowedPrograms: ReadonlyArray<string>
  readonly maxFeeLamports: bigint
  readonly maxSignatures: number
}

/** Every reason the relay refuses to pay for this message (empty: it pays). */
export const relayRefusals = (view: MessageView, limits: RelayLimits): Array<string> => {
  const reasons: Array<string> = []
  if (view.accountKeys[0] !== limits.feePayer) reasons.push(`the fee payer (first account) must be the relay's signer ${limits.feePayer}`)
  if (view.lookupTables > 0) reasons.push("address lookup tables are not accepted")
  if (view.numRequiredSignatures > limits.maxSignatures) reasons.push(`${view.numRequiredSignatures} signatures exceed the maximum ${limits.maxSignatures}`)
  for (const programId of new Set(view.instructions.map((ix) => ix.programId))) {
    if (!limits.allowedPrograms.includes(programId)) reasons.push(`program ${programId} is not allowed`)
  }
  const payerIndex = view.accountKeys.indexOf(limits.feePayer)
  for (const [i, ix] of view.instructions.entries()) {
    if (ix.accounts.includes(payerIndex)) reasons.push(`instruction ${i} uses the fee payer's account (the relay only pays fees)`)
  }
  reasons.push(...unsupportedForGasless(view))
  const fee = feeLamports(view)
  if (fee > limits.maxFeeLamports) reasons.push(`fee ${fee} lamports exceeds the maximum ${limits.maxFeeLamports}`)
  return reasons
}
