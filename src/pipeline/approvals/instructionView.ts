/**
 * Each instruction of a message as a person reads it (issue 31: previews a person can judge): the program
 * by name, the action, the amounts in SOL or token units with symbols, and the counterparties, resolved
 * from the accounts as they were before the transaction (a token account's mint and owner). Pure: the
 * caller reads the accounts. An instruction it cannot decode is said so plainly, never dressed up.
 */
import bs58 from "bs58"
import type { CompiledInstructionView, MessageView } from "../../protocols/messageView.js"
import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM_ID,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM_ID,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM
} from "../../protocols/programIds.js"
import { type AssetAmount, type AssetBook, assetAmount, SOL } from "./assets.js"

export interface InstructionPreview {
  readonly index: number
  readonly programId: string
  readonly program: string
  readonly action: string
  readonly description: string
  readonly amounts: ReadonlyArray<AssetAmount>
  readonly counterparties: ReadonlyArray<string>
}

/** What the describer knows about the world: the wallet, its accounts, mints, and our programs' names. */
export interface DescribeContext {
  readonly wallet: string
  readonly assets: AssetBook
  /** programs the service deploys (escrow, AMMs, staking, lending): id -> name */
  readonly knownPrograms: ReadonlyMap<string, string>
}

const SYSTEM_ACTIONS: Record<number, string> = {
  0: "create account", 1: "assign owner program", 2: "transfer", 3: "create account with seed", 4: "advance nonce",
  5: "withdraw from nonce account", 6: "initialize nonce account", 7: "change nonce authority", 8: "allocate space",
  9: "allocate space with seed", 10: "assign owner program with seed", 11: "transfer with seed", 12: "upgrade nonce account"
}

const TOKEN_ACTIONS: Record<number, string> = {
  0: "initialize mint", 1: "initialize token account", 2: "initialize multisig", 3: "transfer", 4: "approve delegate",
  5: "revoke delegate", 6: "set authority", 7: "mint", 8: "burn", 9: "close account", 10: "freeze account",
  11: "thaw account", 12: "transfer", 13: "approve delegate", 14: "mint", 15: "burn", 16: "initialize token account",
  17: "sync native SOL", 18: "initialize token account", 20: "initialize mint"
}

const AUTHORITY_TYPES = ["mint authority", "freeze authority", "account owner", "close authority"]

const u64At = (data: Buffer, offset: number): bigint | undefined => (data.length >= offset + 8 ? data.readBigUInt64LE(offset) : undefined)
const u32At = (data: Buffer, offset: number): number | undefined => (data.length >= offset + 4 ? data.readUInt32LE(offset) : undefined)
const keyAt = (data: Buffer, offset: number): string | undefined => (data.length >= offset + 32 ? bs58.encode(data.subarray(offset, offset + 32)) : undefined)

export const describeInstructions = (view: MessageView, context: DescribeContext): ReadonlyArray<InstructionPreview> =>
  view.instructions.map((ix, index) => describe(view, ix, index, context))

const describe = (view: MessageView, ix: CompiledInstructionView, index: number, context: DescribeContext): InstructionPreview => {
  const account = (position: number) => {
    const keyIndex = ix.accounts[position]
    return keyIndex === undefined ? undefined : (view.accountKeys[keyIndex] ?? "(an address from a lookup table)")
  }
  const name = (address: string | undefined) => (address === undefined ? "?" : context.assets.label(address, context.wallet))
  const base = { index, programId: ix.programId }
  const line = (program: string, action: string, description: string, amounts: ReadonlyArray<AssetAmount> = [], counterparties: ReadonlyArray<string | undefined> = []) => ({
    ...base, program, action, description, amounts,
    counterparties: [...new Set(counterparties.filter((c): c is string => c !== undefined && c !== context.wallet && !context.assets.isWalletTokenAccount(c, context.wallet)))]
  })

  if (ix.programId === SYSTEM_PROGRAM_ID) {
    const code = u32At(ix.data, 0) ?? -1
    const action = SYSTEM_ACTIONS[code] ?? `instruction ${code}`
    switch (code) {
      case 2: {
        const lamports = u64At(ix.data, 4) ?? 0n
        const amount = assetAmount(SOL, lamports)
        return line("System Program", action, `Transfer ${amount.display} from ${name(account(0))} to ${name(account(1))}`, [amount], [account(1)])
      }
      case 0: {
        const lamports = u64At(ix.data, 4) ?? 0n
        const owner = keyAt(ix.data, 20)
        const amount = assetAmount(SOL, lamports)
        return line("System Program", action, `Create account ${name(account(1))} funded with ${amount.display} by ${name(account(0))}, owned by ${context.knownPrograms.get(owner ?? "") ?? owner ?? "?"}`, [amount], [account(1), owner])
      }
      case 1: {
        const owner = keyAt(ix.data, 4)
        return line("System Program", action, `Give ownership of ${name(account(0))} to program ${context.knownPrograms.get(owner ?? "") ?? owner ?? "?"}`, [], [owner])
      }
      case 8:
        return line("System Program", action, `Allocate ${u64At(ix.data, 4) ?? "?"} bytes of data in ${name(account(0))}`)
      case 4:
        return line("System Program", action, `Advance durable nonce ${name(account(0))} (authority ${name(account(2))})`, [], [account(2)])
      case 5: {
        const amount = assetAmount(SOL, u64At(ix.data, 4) ?? 0n)
        return line("System Program", action, `Withdraw ${amount.display} from nonce account ${name(account(0))} to ${name(account(1))}`, [amount], [account(1)])
      }
      case 7:
        return line("System Program", action, `Make ${keyAt(ix.data, 4) ?? "?"} the authority of nonce account ${name(account(0))}`, [], [keyAt(ix.data, 4)])
      default:
        return line("System Program", action, `System Program: ${action} (${name(account(0))})`)
    }
  }

  if (ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM) {
    const program = ix.programId === TOKEN_PROGRAM ? "SPL Token" : "Token-2022"
    const code = ix.data[0] ?? -1
    const action = TOKEN_ACTIONS[code] ?? `instruction ${code}`
    const checked = code >= 12 && code <= 15
    // (checked variants name the mint as their second account)
    const mintOf = (tokenAccount: string | undefined) => (checked ? account(1) : undefined) ?? context.assets.mintOfTokenAccount(tokenAccount)
    const owner = (tokenAccount: string | undefined) => context.assets.ownerOfTokenAccount(tokenAccount) ?? tokenAccount
    const amountOf = (mint: string | undefined) => assetAmount(context.assets.token(mint), u64At(ix.data, 1) ?? 0n)
    switch (code) {
      case 3:
      case 12: {
        const source = account(0)
        const destination = account(checked ? 2 : 1)
        const amount = amountOf(mintOf(source))
        return line(program, action, `Transfer ${amount.display} from ${name(source)} to ${name(owner(destination))}`, [amount], [owner(destination)])
      }
      case 4:
      case 13: {
        const source = account(0)
        const delegate = account(checked ? 2 : 1)
        const amount = amountOf(mintOf(source))
        return line(program, action, `Let ${name(delegate)} spend up to ${amount.display} from ${name(source)}`, [amount], [delegate])
      }
      case 7:
      case 14: {
        const amount = amountOf(account(0))
        return line(program, action, `Mint ${amount.display} to ${name(owner(account(1)))}`, [amount], [owner(account(1))])
      }
      case 8:
      case 15: {
        const amount = amountOf(mintOf(account(0)) ?? account(1))
        return line(program, action, `Burn ${amount.display} from ${name(account(0))}`, [amount])
      }
      case 9:
        return line(program, action, `Close ${name(account(0))}; its rent goes to ${name(account(1))}`, [], [account(1)])
      case 6: {
        const kind = AUTHORITY_TYPES[ix.data[1] ?? -1] ?? "authority"
        const next = ix.data[2] === 1 ? keyAt(ix.data, 3) : undefined
        return line(program, action, `Set the ${kind} of ${name(account(0))} to ${next === undefined ? "nobody" : name(next)}`, [], [next])
      }
      case 5:
        return line(program, action, `Revoke the delegate of ${name(account(0))}`)
      case 1:
      case 16:
      case 18:
        return line(program, action, `Initialize token account ${name(account(0))} for ${context.assets.token(account(1)).symbol}`)
      default:
        return line(program, action, `${program}: ${action} (${name(account(0))})`)
    }
  }

  if (ix.programId === ASSOCIATED_TOKEN_PROGRAM) {
    const token = context.assets.token(account(3))
    return line("Associated Token Account", "create token account", `Create the ${token.symbol} account of ${name(account(2))} (rent paid by ${name(account(0))})`, [], [account(2)])
  }
  if (ix.programId === COMPUTE_BUDGET_PROGRAM_ID) {
    const code = ix.data[0]
    if (code === 2) return line("Compute Budget", "set compute unit limit", `Use at most ${u32At(ix.data, 1) ?? "?"} compute units`)
    if (code === 3) return line("Compute Budget", "set priority fee", `Pay ${u64At(ix.data, 1) ?? "?"} micro-lamports per compute unit as priority fee`)
    return line("Compute Budget", `instruction ${code ?? "?"}`, "Compute Budget instruction")
  }
  if (ix.programId === MEMO_PROGRAM || ix.programId === MEMO_V1_PROGRAM) {
    const text = ix.data.toString("utf8")
    return line("Memo", "memo", `Memo: "${text.length > 120 ? `${text.slice(0, 120)}...` : text}"`)
  }
  const known = context.knownPrograms.get(ix.programId)
  if (known !== undefined) {
    // what it moves shows in the simulated balance changes; its accounts are the program's own (pools, vaults)
    return line(known, "call", `Call ${known} with ${ix.accounts.length} account(s) and ${ix.data.length} byte(s) of data`)
  }
  return line(ix.programId, "unknown instruction", `An instruction of a program the service does not know (${ix.programId}), ${ix.data.length} byte(s) of data: judge it by the simulated balance changes`)
}
