/**
 * The account layouts the effect analysis reads, pure: an SPL token account (Token and Token-2022), a
 * mint, a System durable-nonce account. Each decoder answers undefined for bytes that are not that kind
 * of account, so an unknown account is simply not read as one.
 */
import bs58 from "bs58"
import { SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "../../protocols/programIds.js"

/** An account as read before or left by the simulation. */
export interface AccountState {
  readonly lamports: bigint
  readonly owner: string
  readonly data: Uint8Array
}

export interface TokenAccountState {
  readonly mint: string
  readonly owner: string
  readonly amount: bigint
  readonly delegate: string | null
  readonly delegatedAmount: bigint
  readonly closeAuthority: string | null
}

export interface MintState {
  readonly mintAuthority: string | null
  readonly freezeAuthority: string | null
}

export interface NonceState {
  readonly authority: string
}

const TOKEN_ACCOUNT_SIZE = 165
const MINT_SIZE = 82
/** Token-2022 marks an extended account with its kind at byte 165: 1 mint, 2 account. */
const ACCOUNT_TYPE_OFFSET = 165
const NONCE_SIZE = 80

export const isTokenProgram = (program: string): boolean => program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM

const view = (data: Uint8Array) => new DataView(data.buffer, data.byteOffset, data.byteLength)
const key = (data: Uint8Array, at: number) => bs58.encode(data.subarray(at, at + 32))
/** A COption<Pubkey>: a u32 tag (1 = some) then 32 bytes. */
const optionalKey = (data: Uint8Array, at: number): string | null => (view(data).getUint32(at, true) === 1 ? key(data, at + 4) : null)

export const tokenAccountState = (account: AccountState | null): TokenAccountState | undefined => {
  if (account === null || !isTokenProgram(account.owner) || account.data.length < TOKEN_ACCOUNT_SIZE) return undefined
  const data = account.data
  if (data.length > TOKEN_ACCOUNT_SIZE && data[ACCOUNT_TYPE_OFFSET] !== 2) return undefined
  // state byte 108: 0 = uninitialized
  if (data[108] === 0) return undefined
  const bytes = view(data)
  return {
    mint: key(data, 0),
    owner: key(data, 32),
    amount: bytes.getBigUint64(64, true),
    delegate: optionalKey(data, 72),
    delegatedAmount: bytes.getBigUint64(121, true),
    closeAuthority: optionalKey(data, 129)
  }
}

export const mintState = (account: AccountState | null): MintState | undefined => {
  if (account === null || !isTokenProgram(account.owner)) return undefined
  const data = account.data
  const plain = data.length === MINT_SIZE
  const extended = data.length > ACCOUNT_TYPE_OFFSET && data[ACCOUNT_TYPE_OFFSET] === 1
  if (!plain && !extended) return undefined
  // isInitialized byte 45
  if (data[45] !== 1) return undefined
  return { mintAuthority: optionalKey(data, 0), freezeAuthority: optionalKey(data, 46) }
}

/** A System-owned nonce account, initialized (versions u32, state u32 = 1, authority, nonce, fee). */
export const nonceState = (account: AccountState | null): NonceState | undefined => {
  if (account === null || account.owner !== SYSTEM_PROGRAM_ID || account.data.length !== NONCE_SIZE) return undefined
  if (view(account.data).getUint32(4, true) !== 1) return undefined
  return { authority: key(account.data, 8) }
}
