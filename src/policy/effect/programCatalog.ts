/**
 * What the service knows about programs, as data the effect analysis reads: per program id a name and a
 * decoder that names an instruction's action and the facts it states (SOL or tokens it moves, the
 * account it closes, the accounts whose control it may change, a nonce it advances). An instruction of a
 * program not in the catalog, or one its decoder does not know, is unexplained.
 */
import type { ControlKind } from "../../../schemas/effect.js"
import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM_ID,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM_ID,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM
} from "../../protocols/programIds.js"
import { systemProgram } from "./systemProgram.js"
import { tokenProgram } from "./tokenProgram.js"

export interface DecodedInstruction {
  readonly action: string
  readonly solTransfer?: { readonly from: string; readonly to: string; readonly lamports: bigint }
  readonly tokenTransfer?: { readonly source: string; readonly destination: string; readonly amount: bigint }
  readonly close?: { readonly account: string; readonly destination: string }
  /** accounts whose control this instruction may change (to say which instruction made a change) */
  readonly controls?: ReadonlyArray<{ readonly account: string; readonly kind: ControlKind }>
  readonly nonceAdvance?: { readonly nonce: string; readonly authority: string }
}

export interface ProgramDecoder {
  readonly name: string
  /** undefined: an instruction of this program the service does not know */
  readonly decode: (data: Uint8Array, accounts: ReadonlyArray<string>) => DecodedInstruction | undefined
}

export type ProgramCatalog = ReadonlyMap<string, ProgramDecoder>

/** A program whose instructions are told apart by their first byte (our own programs). */
export const taggedProgram = (name: string, actions: Readonly<Record<number, string>>): ProgramDecoder => ({
  name,
  decode: (data) => {
    const action = data.length > 0 ? actions[data[0]!] : undefined
    return action === undefined ? undefined : { action }
  }
})

const COMPUTE_BUDGET_ACTIONS: Readonly<Record<number, string>> = {
  1: "request_heap_frame",
  2: "set_compute_unit_limit",
  3: "set_compute_unit_price",
  4: "set_loaded_accounts_data_size_limit"
}

const memo: ProgramDecoder = { name: "Memo Program", decode: () => ({ action: "memo" }) }

/** The associated token program: creating the ATA changes nothing the wallet holds but the rent it pays. */
const associatedTokenProgram: ProgramDecoder = {
  name: "Associated Token Program",
  decode: (data) => {
    const tag = data.length === 0 ? 0 : data[0]
    return tag === 0 ? { action: "create" } : tag === 1 ? { action: "create_idempotent" } : tag === 2 ? { action: "recover_nested" } : undefined
  }
}

/** The programs every deployment knows (System, SPL Token and Token-2022, ATA, compute budget, memo), plus `extra`. */
export const programCatalog = (extra: Iterable<readonly [string, ProgramDecoder]> = []): ProgramCatalog =>
  new Map<string, ProgramDecoder>([
    [SYSTEM_PROGRAM_ID, systemProgram],
    [TOKEN_PROGRAM, tokenProgram("Token Program", false)],
    [TOKEN_2022_PROGRAM, tokenProgram("Token-2022 Program", true)],
    [ASSOCIATED_TOKEN_PROGRAM, associatedTokenProgram],
    [COMPUTE_BUDGET_PROGRAM_ID, taggedProgram("Compute Budget Program", COMPUTE_BUDGET_ACTIONS)],
    [MEMO_PROGRAM, memo],
    [MEMO_V1_PROGRAM, memo],
    ...extra
  ])
