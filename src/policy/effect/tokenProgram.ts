/**
 * SPL Token and Token-2022 instructions (first byte), and the token-metadata interface Token-2022
 * serves (8-byte discriminators). Token-2022's other extensions (confidential transfers, transfer fees,
 * hooks, permanent delegates, ...) change state this analysis does not read, so they stay unknown:
 * a transaction using them is unexplained unless a policy allows the program.
 */
import { createHash } from "node:crypto"
import type { ControlKind } from "../../../schemas/effect.js"
import type { DecodedInstruction, ProgramDecoder } from "./programCatalog.js"

const u64 = (data: Uint8Array, at: number) =>
  data.length >= at + 8 ? new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true) : undefined

/** The base instructions both programs share, by tag. */
const PLAIN_ACTIONS: Readonly<Record<number, string>> = {
  0: "initialize_mint",
  1: "initialize_account",
  2: "initialize_multisig",
  5: "revoke",
  10: "freeze_account",
  11: "thaw_account",
  16: "initialize_account2",
  17: "sync_native",
  18: "initialize_account3",
  19: "initialize_multisig2",
  20: "initialize_mint2",
  21: "get_account_data_size",
  22: "initialize_immutable_owner",
  23: "amount_to_ui_amount",
  24: "ui_amount_to_amount"
}

/** SetAuthority's authority types this analysis reads on the accounts (0-3); Token-2022's others are unknown. */
const AUTHORITY_KINDS: ReadonlyArray<ControlKind> = ["mint_authority", "freeze_authority", "token_owner", "close_authority"]

const discriminator = (name: string) => createHash("sha256").update(name).digest().subarray(0, 8).toString("hex")
const METADATA_ACTIONS: ReadonlyMap<string, string> = new Map([
  [discriminator("spl_token_metadata_interface:initialize_account"), "initialize_token_metadata"],
  [discriminator("spl_token_metadata_interface:updating_field"), "update_token_metadata_field"],
  [discriminator("spl_token_metadata_interface:remove_key_ix"), "remove_token_metadata_key"],
  [discriminator("spl_token_metadata_interface:update_the_authority"), "update_token_metadata_authority"],
  [discriminator("spl_token_metadata_interface:emitter"), "emit_token_metadata"]
])

const tokenTransfer = (action: string, source: string | undefined, destination: string | undefined, amount: bigint | undefined): DecodedInstruction =>
  source === undefined || destination === undefined || amount === undefined ? { action } : { action, tokenTransfer: { source, destination, amount } }

const controls = (action: string, account: string | undefined, kind: ControlKind): DecodedInstruction =>
  ({ action, controls: account === undefined ? [] : [{ account, kind }] })

const decodeBase = (data: Uint8Array, accounts: ReadonlyArray<string>): DecodedInstruction | undefined => {
  const [first, second, third] = accounts
  switch (data[0]) {
    case 3:
      return tokenTransfer("transfer", first, second, u64(data, 1))
    case 12:
      return tokenTransfer("transfer_checked", first, third, u64(data, 1))
    case 4:
      return controls("approve", first, "delegate")
    case 13:
      return controls("approve_checked", first, "delegate")
    case 5:
      return controls("revoke", first, "delegate")
    case 6: {
      const kind = AUTHORITY_KINDS[data[1] ?? 255]
      return kind === undefined ? undefined : controls("set_authority", first, kind)
    }
    case 7:
      return { action: "mint_to" }
    case 14:
      return { action: "mint_to_checked" }
    case 8:
      return { action: "burn" }
    case 15:
      return { action: "burn_checked" }
    case 9:
      return first === undefined || second === undefined ? { action: "close_account" } : { action: "close_account", close: { account: first, destination: second } }
    default: {
      const action = data.length > 0 ? PLAIN_ACTIONS[data[0]!] : undefined
      return action === undefined ? undefined : { action }
    }
  }
}

/** Token-2022: the base set, the mint close authority and metadata pointer initializers, token metadata. */
const decode2022 = (data: Uint8Array, accounts: ReadonlyArray<string>): DecodedInstruction | undefined => {
  if (data.length >= 8) {
    const metadata = METADATA_ACTIONS.get(Buffer.from(data.subarray(0, 8)).toString("hex"))
    if (metadata !== undefined) return { action: metadata }
  }
  if (data[0] === 25) return { action: "initialize_mint_close_authority" }
  if (data[0] === 39 && data[1] === 0) return { action: "initialize_metadata_pointer" }
  return data[0] !== undefined && data[0] <= 24 ? decodeBase(data, accounts) : undefined
}

export const tokenProgram = (name: string, token2022: boolean): ProgramDecoder => ({
  name,
  decode: (data, accounts) => (data.length === 0 ? undefined : token2022 ? decode2022(data, accounts) : decodeBase(data, accounts))
})
