/**
 * Every instruction a transaction runs, top level and inner (CPI), as the simulation reports them,
 * decoded with the program catalog. Inner instructions come in the three shapes Solana RPCs answer:
 * compiled (account indexes, base58 data: the local ledger), partially decoded (addresses, base58 data)
 * and parsed (jsonParsed, for the programs the RPC parses). Pure.
 */
import bs58 from "bs58"
import type { ControlKind, InstructionRef } from "../../../schemas/effect.js"
import type { MessageView } from "../../protocols/messageView.js"
import { SYSTEM_PROGRAM_ID } from "../../protocols/programIds.js"
import { isTokenProgram } from "./accountState.js"
import type { DecodedInstruction, ProgramCatalog } from "./programCatalog.js"

export interface LocatedInstruction {
  readonly ref: InstructionRef
  readonly programId: string
  readonly program: string
  readonly decoded: DecodedInstruction | undefined
  /** the action as shown: the decoded one, else "unknown instruction <first byte>" */
  readonly action: string
}

export class EffectInputError extends Error {}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const unknownAction = (data: Uint8Array | undefined) =>
  data === undefined || data.length === 0 ? "unknown instruction (no data)" : `unknown instruction ${data[0]}`

const located = (ref: InstructionRef, programId: string, catalog: ProgramCatalog, decoded: DecodedInstruction | undefined, data: Uint8Array | undefined): LocatedInstruction => ({
  ref,
  programId,
  program: catalog.get(programId)?.name ?? "unknown program",
  decoded,
  action: decoded?.action ?? unknownAction(data)
})

const decodeRaw = (ref: InstructionRef, programId: string, accounts: ReadonlyArray<string>, data: Uint8Array, catalog: ProgramCatalog) =>
  located(ref, programId, catalog, catalog.get(programId)?.decode(data, accounts), data)

/** jsonParsed inner instructions: the facts this analysis uses, for the System and token programs. */
const parsedFacts = (programId: string, type: string, info: Record<string, unknown>): DecodedInstruction | undefined => {
  const amount = (value: unknown) => (typeof value === "number" || typeof value === "string" ? BigInt(value) : undefined)
  const tokenAmount = amount(info.amount) ?? amount(record(info.tokenAmount)?.amount)
  const controls = (account: unknown, kind: ControlKind): DecodedInstruction =>
    ({ action: type, controls: typeof account === "string" ? [{ account, kind }] : [] })
  if (programId === SYSTEM_PROGRAM_ID) {
    const from = text(info.source) ?? text(info.nonceAccount)
    const to = text(info.destination) ?? text(info.recipient) ?? text(info.newAccount)
    const lamports = amount(info.lamports)
    if (["transfer", "transferWithSeed", "createAccount", "createAccountWithSeed", "withdrawFromNonce"].includes(type)) {
      return from === undefined || to === undefined || lamports === undefined ? { action: type } : { action: type, solTransfer: { from, to, lamports } }
    }
    if (type === "assign" || type === "assignWithSeed") return controls(info.account, "owner_program")
    if (type === "allocate" || type === "allocateWithSeed") return controls(info.account, "account_data")
    if (type === "authorizeNonce") return controls(info.nonceAccount, "nonce_authority")
    if (type === "advanceNonce") {
      const nonce = text(info.nonceAccount)
      const authority = text(info.nonceAuthority)
      return nonce === undefined || authority === undefined ? { action: type } : { action: type, nonceAdvance: { nonce, authority } }
    }
    return ["initializeNonce", "upgradeNonce"].includes(type) ? { action: type } : undefined
  }
  if (isTokenProgram(programId)) {
    if (type === "transfer" || type === "transferChecked") {
      const source = text(info.source)
      const destination = text(info.destination)
      return source === undefined || destination === undefined || tokenAmount === undefined ? { action: type } : { action: type, tokenTransfer: { source, destination, amount: tokenAmount } }
    }
    if (type === "approve" || type === "approveChecked" || type === "revoke") return controls(info.source, "delegate")
    if (type === "setAuthority") {
      const kinds: Record<string, ControlKind> = { mintTokens: "mint_authority", freezeAccount: "freeze_authority", accountOwner: "token_owner", closeAccount: "close_authority" }
      const kind = kinds[text(info.authorityType) ?? ""]
      return kind === undefined ? undefined : controls(info.account ?? info.mint, kind)
    }
    if (type === "closeAccount") {
      const account = text(info.account)
      const destination = text(info.destination)
      return account === undefined || destination === undefined ? { action: type } : { action: type, close: { account, destination } }
    }
    const plain = ["initializeMint", "initializeMint2", "initializeAccount", "initializeAccount2", "initializeAccount3", "initializeMultisig",
      "initializeMultisig2", "mintTo", "mintToChecked", "burn", "burnChecked", "freezeAccount", "thawAccount", "syncNative",
      "getAccountDataSize", "initializeImmutableOwner", "amountToUiAmount", "uiAmountToAmount"]
    return plain.includes(type) ? { action: type } : undefined
  }
  return { action: type }
}

const innerInstruction = (ref: InstructionRef, raw: unknown, keys: ReadonlyArray<string>, catalog: ProgramCatalog): LocatedInstruction => {
  const ix = record(raw)
  if (ix === undefined) throw new EffectInputError("an inner instruction of the simulation is not an object")
  if (typeof ix.programIdIndex === "number") {
    const programId = keys[ix.programIdIndex]
    const accounts = Array.isArray(ix.accounts) ? ix.accounts.map((index) => keys[Number(index)]) : undefined
    if (programId === undefined || accounts === undefined || accounts.some((a) => a === undefined) || typeof ix.data !== "string") {
      throw new EffectInputError("an inner instruction of the simulation names accounts outside the message")
    }
    return decodeRaw(ref, programId, accounts as Array<string>, bs58.decode(ix.data), catalog)
  }
  const programId = text(ix.programId)
  if (programId === undefined) throw new EffectInputError("an inner instruction of the simulation has no program")
  const parsed = record(ix.parsed)
  if (parsed !== undefined || typeof ix.parsed === "string") {
    const type = text(parsed?.type) ?? "memo"
    const known = catalog.has(programId) ? parsedFacts(programId, type, record(parsed?.info) ?? {}) : undefined
    return located(ref, programId, catalog, known, undefined)
  }
  if (!Array.isArray(ix.accounts) || typeof ix.data !== "string") throw new EffectInputError("an inner instruction of the simulation cannot be read")
  return decodeRaw(ref, programId, ix.accounts.map(String), bs58.decode(ix.data), catalog)
}

/**
 * Top-level instructions in order, each followed by its inner ones. `inner` is the simulation's
 * `innerInstructions` (null when the RPC did not return them: the analysis then cannot see CPIs, and refuses).
 */
export const instructionsOf = (view: MessageView, inner: unknown, catalog: ProgramCatalog): ReadonlyArray<LocatedInstruction> => {
  if (!Array.isArray(inner)) throw new EffectInputError("the simulation did not return the inner instructions (CPIs) it ran")
  const innerByIndex = new Map<number, ReadonlyArray<unknown>>()
  for (const set of inner) {
    const entry = record(set)
    if (entry === undefined || typeof entry.index !== "number" || !Array.isArray(entry.instructions)) throw new EffectInputError("the simulation's inner instructions cannot be read")
    innerByIndex.set(entry.index, entry.instructions)
  }
  return view.instructions.flatMap((ix, index) => [
    decodeRaw({ index }, ix.programId, ix.accounts.map((at) => view.accountKeys[at] ?? ""), ix.data, catalog),
    ...(innerByIndex.get(index) ?? []).map((raw, position) => innerInstruction({ index, inner: position }, raw, view.accountKeys, catalog))
  ])
}
