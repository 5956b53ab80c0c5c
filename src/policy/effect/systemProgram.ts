/**
 * The System program's instructions (a u32 tag, little endian): every one is known; transfers state
 * the lamports they move, Assign and Allocate the account whose owner or data they change, the nonce
 * instructions the nonce they use or re-authorize.
 */
import type { DecodedInstruction, ProgramDecoder } from "./programCatalog.js"

const u32 = (data: Uint8Array, at: number) => new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(at, true)
const u64 = (data: Uint8Array, at: number) => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true)

/** CreateAccountWithSeed: base (32), seed (u64 length + bytes), lamports, space, owner. */
const seededLamports = (data: Uint8Array): bigint | undefined => {
  if (data.length < 44) return undefined
  const seedLength = Number(u64(data, 36))
  const at = 44 + seedLength
  return data.length >= at + 8 ? u64(data, at) : undefined
}

const transfer = (action: string, from: string | undefined, to: string | undefined, lamports: bigint | undefined): DecodedInstruction =>
  from === undefined || to === undefined || lamports === undefined ? { action } : { action, solTransfer: { from, to, lamports } }

const decode = (data: Uint8Array, accounts: ReadonlyArray<string>): DecodedInstruction | undefined => {
  if (data.length < 4) return undefined
  const [first, second, third] = accounts
  const amountAt = (offset: number) => (data.length >= offset + 8 ? u64(data, offset) : undefined)
  switch (u32(data, 0)) {
    case 0:
      return transfer("create_account", first, second, amountAt(4))
    case 1:
      return { action: "assign", controls: first === undefined ? [] : [{ account: first, kind: "owner_program" }] }
    case 2:
      return transfer("transfer", first, second, amountAt(4))
    case 3:
      return transfer("create_account_with_seed", first, second, seededLamports(data))
    case 4:
      return first === undefined || third === undefined ? { action: "advance_nonce" } : { action: "advance_nonce", nonceAdvance: { nonce: first, authority: third } }
    case 5:
      return transfer("withdraw_nonce", first, second, amountAt(4))
    case 6:
      return { action: "initialize_nonce" }
    case 7:
      return { action: "authorize_nonce", controls: first === undefined ? [] : [{ account: first, kind: "nonce_authority" }] }
    case 8:
      return { action: "allocate", controls: first === undefined ? [] : [{ account: first, kind: "account_data" }] }
    case 9:
      return { action: "allocate_with_seed", controls: first === undefined ? [] : [{ account: first, kind: "account_data" }, { account: first, kind: "owner_program" }] }
    case 10:
      return { action: "assign_with_seed", controls: first === undefined ? [] : [{ account: first, kind: "owner_program" }] }
    case 11:
      return transfer("transfer_with_seed", first, third, amountAt(4))
    case 12:
      return { action: "upgrade_nonce" }
    default:
      return undefined
  }
}

export const systemProgram: ProgramDecoder = { name: "System Program", decode }
