// SPL Token / Token-2022 account and mint layouts, decoded into the "jsonParsed" shapes a validator serves.
import bs58 from "bs58"

export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
export const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"

const ACCOUNT_LEN = 165
const MINT_LEN = 82
const ACCOUNT_TYPE_MINT = 1
const ACCOUNT_TYPE_ACCOUNT = 2
const ACCOUNT_STATES = ["uninitialized", "initialized", "frozen"] as const

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM_ID || owner === TOKEN_2022_PROGRAM_ID
}

export function programName(owner: string): string {
  return owner === TOKEN_2022_PROGRAM_ID ? "spl-token-2022" : "spl-token"
}

export interface TokenAccountState {
  readonly mint: string
  readonly owner: string
  readonly amount: bigint
  readonly delegate: string | null
  readonly state: (typeof ACCOUNT_STATES)[number]
  readonly nativeReserve: bigint | null
  readonly delegatedAmount: bigint
  readonly closeAuthority: string | null
}

export interface MintState {
  readonly mintAuthority: string | null
  readonly supply: bigint
  readonly decimals: number
  readonly isInitialized: boolean
  readonly freezeAuthority: string | null
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength)
}

function optionalKey(data: Uint8Array, offset: number): string | null {
  return view(data).getUint32(offset, true) === 1 ? bs58.encode(data.subarray(offset + 4, offset + 36)) : null
}

export function isTokenAccountData(data: Uint8Array): boolean {
  return data.length === ACCOUNT_LEN || (data.length > ACCOUNT_LEN && data[ACCOUNT_LEN] === ACCOUNT_TYPE_ACCOUNT)
}

export function isMintData(data: Uint8Array): boolean {
  return data.length === MINT_LEN || (data.length > ACCOUNT_LEN && data[ACCOUNT_LEN] === ACCOUNT_TYPE_MINT)
}

/** Decodes a token account; null when the bytes are not an initialized token account. */
export function decodeTokenAccount(data: Uint8Array): TokenAccountState | null {
  if (!isTokenAccountData(data)) return null
  const dv = view(data)
  const state = ACCOUNT_STATES[data[108]]
  if (state === undefined || state === "uninitialized") return null
  return {
    mint: bs58.encode(data.subarray(0, 32)),
    owner: bs58.encode(data.subarray(32, 64)),
    amount: dv.getBigUint64(64, true),
    delegate: optionalKey(data, 72),
    state,
    nativeReserve: dv.getUint32(109, true) === 1 ? dv.getBigUint64(113, true) : null,
    delegatedAmount: dv.getBigUint64(121, true),
    closeAuthority: optionalKey(data, 129)
  }
}

/** The owner field alone (for the owner index), without decoding the rest. */
export function tokenAccountOwner(data: Uint8Array): string | null {
  return isTokenAccountData(data) && data[108] !== 0 ? bs58.encode(data.subarray(32, 64)) : null
}

export function decodeMint(data: Uint8Array): MintState | null {
  if (!isMintData(data)) return null
  const dv = view(data)
  return {
    mintAuthority: optionalKey(data, 0),
    supply: dv.getBigUint64(36, true),
    decimals: data[44],
    isInitialized: data[45] === 1,
    freezeAuthority: optionalKey(data, 46)
  }
}

export interface UiTokenAmount {
  readonly amount: string
  readonly decimals: number
  readonly uiAmount: number | null
  readonly uiAmountString: string
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString()
  let uiAmountString = digits
  if (decimals > 0) {
    const padded = digits.padStart(decimals + 1, "0")
    const whole = padded.slice(0, padded.length - decimals)
    const fraction = padded.slice(padded.length - decimals).replace(/0+$/, "")
    uiAmountString = fraction.length > 0 ? `${whole}.${fraction}` : whole
  }
  return { amount: digits, decimals, uiAmount: Number(uiAmountString), uiAmountString }
}

export function parsedTokenAccount(account: TokenAccountState, decimals: number, programOwner: string): Record<string, unknown> {
  const info: Record<string, unknown> = {
    isNative: account.nativeReserve !== null,
    mint: account.mint,
    owner: account.owner,
    state: account.state,
    tokenAmount: uiTokenAmount(account.amount, decimals)
  }
  if (account.delegate !== null) {
    info.delegate = account.delegate
    info.delegatedAmount = uiTokenAmount(account.delegatedAmount, decimals)
  }
  if (account.nativeReserve !== null) info.rentExemptReserve = uiTokenAmount(account.nativeReserve, decimals)
  if (account.closeAuthority !== null) info.closeAuthority = account.closeAuthority
  return { program: programName(programOwner), parsed: { info, type: "account" } }
}

export function parsedMint(mint: MintState, programOwner: string): Record<string, unknown> {
  return {
    program: programName(programOwner),
    parsed: {
      info: {
        decimals: mint.decimals,
        freezeAuthority: mint.freezeAuthority,
        isInitialized: mint.isInitialized,
        mintAuthority: mint.mintAuthority,
        supply: mint.supply.toString()
      },
      type: "mint"
    }
  }
}
