import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { ComputeBudgetProgram, PublicKey, SystemProgram } from "@solana/web3.js"

/** Real program ids, taken from the libraries rather than typed by hand. */
export const SYSTEM_PROGRAM_ID = SystemProgram.programId.toBase58() // 11111111111111111111111111111111
export const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58() // TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA
export const ASSOCIATED_TOKEN_PROGRAM = ASSOCIATED_TOKEN_PROGRAM_ID.toBase58() // ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL
export const COMPUTE_BUDGET_PROGRAM_ID = ComputeBudgetProgram.programId.toBase58() // ComputeBudget111111111111111111111111111111
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
export const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"
export const MEMO_V1_PROGRAM = "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"

/** ESCROW_PROGRAM_ID's default: a placeholder address until our program is deployed. */
export const DEFAULT_ESCROW_PROGRAM_ID = "Escrow1111111111111111111111111111111111111"

/** A base58 string that decodes to 32 bytes; throws naming the setting otherwise. */
export const parseProgramId = (value: string, setting: string): string => {
  try {
    return new PublicKey(value).toBase58()
  } catch {
    throw new Error(`${setting} is not a base58 program id: ${value}`)
  }
}
