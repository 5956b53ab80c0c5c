/**
 * The whole effect of a transaction on what a wallet owns or controls, pure: from every account the
 * transaction can write (read before, and as the simulation leaves it) and from its decoded instructions,
 * inner ones included. Only accounts the message marks writable can change, so they (and the wallet)
 * are all that is read.
 *
 * Balances come from the state before and after; decoded transfers are a floor under them, so a payment
 * that reaches the wallet between the two reads cannot hide an outflow the instructions state.
 */
import type {
  ClosedAccount,
  ControlChange,
  ControlKind,
  EffectInstruction,
  MintAmount,
  TokenBalanceChange,
  TransactionEffect,
  ValueRecipient
} from "../../../schemas/effect.js"
import { messageFeeLamports, type MessageView } from "../../protocols/messageView.js"
import { type AccountState, mintState, nonceState, tokenAccountState } from "./accountState.js"
import { EffectInputError, instructionsOf, type LocatedInstruction } from "./instructionList.js"
import type { ProgramCatalog } from "./programCatalog.js"

export { EffectInputError }

export interface EffectInput {
  readonly wallet: string
  readonly message: MessageView
  /** the accounts read (accountsToRead), with their state before and after, in the same order */
  readonly accounts: ReadonlyArray<string>
  readonly before: ReadonlyArray<AccountState | null>
  readonly after: ReadonlyArray<AccountState | null>
  /** the simulation's `innerInstructions` as the RPC answered them */
  readonly innerInstructions: unknown
  readonly catalog: ProgramCatalog
}

/** simulateTransaction returns at most this many accounts. */
export const MAX_ACCOUNTS_READ = 100

/** The wallet and every account the message marks writable: all a transaction can change. */
export const accountsToRead = (view: MessageView, wallet: string): ReadonlyArray<string> => {
  const writableSigners = view.numRequiredSignatures - view.numReadonlySigned
  const writableEnd = view.accountKeys.length - view.numReadonlyUnsigned
  const writable = view.accountKeys.filter((_key, i) => i < writableSigners || (i >= view.numRequiredSignatures && i < writableEnd))
  const accounts = [...new Set([wallet, ...writable])]
  if (accounts.length > MAX_ACCOUNTS_READ) throw new EffectInputError(`the transaction writes ${accounts.length} accounts; at most ${MAX_ACCOUNTS_READ} can be checked`)
  return accounts
}

const max = (a: bigint, b: bigint) => (a > b ? a : b)
const add = <K>(map: Map<K, bigint>, key: K, amount: bigint) => map.set(key, (map.get(key) ?? 0n) + amount)
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a).equals(Buffer.from(b))

/** Gains of one recipient, by asset ("SOL" or a mint). */
type Gains = Map<string, Map<string, bigint>>
const SOL = "SOL"
const gain = (gains: Gains, address: string, asset: string, amount: bigint) => {
  if (amount <= 0n) return
  const assets = gains.get(address) ?? new Map<string, bigint>()
  gains.set(address, assets)
  add(assets, asset, amount)
}

export const analyzeEffect = (input: EffectInput): TransactionEffect => {
  const { wallet, message } = input
  if (input.before.length !== input.accounts.length || input.after.length !== input.accounts.length) {
    throw new EffectInputError("the simulation did not return every account asked for")
  }
  const before = new Map(input.accounts.map((account, i) => [account, input.before[i] ?? null]))
  const after = new Map(input.accounts.map((account, i) => [account, input.after[i] ?? null]))
  const instructions = instructionsOf(message, input.innerInstructions, input.catalog)
  const tokenBefore = (account: string) => tokenAccountState(before.get(account) ?? null)
  const tokenAfter = (account: string) => tokenAccountState(after.get(account) ?? null)
  /** The wallet's own account, or a token account it owns before or after: value there stays the wallet's. */
  const walletSide = (account: string) => account === wallet || tokenBefore(account)?.owner === wallet || tokenAfter(account)?.owner === wallet
  /** Who a payment into `account` reaches: a token account's owner, else the account itself. */
  const beneficiary = (account: string) => tokenAfter(account)?.owner ?? tokenBefore(account)?.owner ?? account

  // ---- the wallet's SOL: its own account and the nonce accounts it controls (withdrawable by it) ----
  const feePayer = message.accountKeys[0] ?? ""
  const feeLamports = messageFeeLamports(message)
  const solBefore = before.get(wallet)?.lamports ?? 0n
  const solAfter = after.get(wallet)?.lamports ?? 0n
  const solAccounts = new Set([wallet, ...input.accounts.filter((account) => nonceState(before.get(account) ?? null)?.authority === wallet)])
  const lamportsOf = (states: ReadonlyMap<string, AccountState | null>) => [...solAccounts].reduce((sum, account) => sum + (states.get(account)?.lamports ?? 0n), 0n)
  const heldBefore = lamportsOf(before)
  const heldAfter = lamportsOf(after)
  const decodedGains: Gains = new Map()
  let statedSolOut = feePayer === wallet ? feeLamports : 0n
  for (const { decoded } of instructions) {
    const sent = decoded?.solTransfer
    if (sent === undefined || !solAccounts.has(sent.from) || solAccounts.has(sent.to) || walletSide(sent.to)) continue
    statedSolOut += sent.lamports
    gain(decodedGains, beneficiary(sent.to), SOL, sent.lamports)
  }
  const solOutflowLamports = max(heldBefore > heldAfter ? heldBefore - heldAfter : 0n, statedSolOut)

  // ---- the wallet's tokens ----
  const tokenChanges: Array<TokenBalanceChange> = []
  const diffOut = new Map<string, bigint>()
  const diffGains: Gains = new Map()
  for (const account of input.accounts) {
    const pre = tokenBefore(account)
    const post = tokenAfter(account)
    const mint = pre?.mint ?? post?.mint
    if (mint === undefined) continue
    const held = pre?.owner === wallet ? pre.amount : 0n
    const holds = post?.owner === wallet ? post.amount : 0n
    if (pre?.owner === wallet || post?.owner === wallet) {
      tokenChanges.push({ account, mint, before: held, after: holds })
      if (held > holds) add(diffOut, mint, held - holds)
    }
    // tokens reaching someone else: an account of theirs that gains, or one of ours handed to them
    if (post !== undefined && post.owner !== wallet) {
      const had = pre !== undefined && pre.mint === post.mint && pre.owner === post.owner ? pre.amount : 0n
      gain(diffGains, post.owner, mint, post.amount - had)
    }
  }
  const statedOut = new Map<string, bigint>()
  for (const { decoded } of instructions) {
    const moved = decoded?.tokenTransfer
    const source = moved === undefined ? undefined : tokenBefore(moved.source)
    if (moved === undefined || source?.owner !== wallet || walletSide(moved.destination)) continue
    add(statedOut, source.mint, moved.amount)
    gain(decodedGains, beneficiary(moved.destination), source.mint, moved.amount)
  }
  const tokenOutflows: Array<MintAmount> = [...new Set([...diffOut.keys(), ...statedOut.keys()])].map((mint) => ({
    mint,
    amount: max(diffOut.get(mint) ?? 0n, statedOut.get(mint) ?? 0n)
  }))

  // ---- SOL reaching someone else ----
  for (const account of input.accounts) {
    if (walletSide(account) || solAccounts.has(account) || account === feePayer) continue
    const gained = (after.get(account)?.lamports ?? 0n) - (before.get(account)?.lamports ?? 0n)
    gain(diffGains, beneficiary(account), SOL, gained)
  }
  const recipients = mergeGains(diffGains, decodedGains)

  const { controlChanges, closedAccounts } = controlEffects(wallet, input.accounts, before, after, instructions)
  const first = instructions[0]
  const advance = first !== undefined && first.ref.inner === undefined ? first.decoded?.nonceAdvance : undefined
  const durableNonce = advance === undefined
    ? undefined
    : { account: advance.nonce, authority: nonceState(before.get(advance.nonce) ?? null)?.authority ?? advance.authority }

  return {
    wallet,
    feePayer,
    feeLamports,
    sol: { beforeLamports: solBefore, afterLamports: solAfter },
    solOutflowLamports,
    tokenChanges,
    tokenOutflows,
    recipients,
    controlChanges,
    closedAccounts,
    ...(durableNonce === undefined ? {} : { durableNonce }),
    programs: [...new Set(instructions.map((ix) => ix.programId))],
    instructions: instructions.map(
      (ix): EffectInstruction => ({ index: ix.ref.index, ...(ix.ref.inner === undefined ? {} : { inner: ix.ref.inner }), programId: ix.programId, program: ix.program, action: ix.action, explained: ix.decoded !== undefined })
    )
  }
}

/** Per recipient and asset, the larger of what the states show and what the instructions state. */
const mergeGains = (observed: Gains, stated: Gains): Array<ValueRecipient> =>
  [...new Set([...observed.keys(), ...stated.keys()])].sort().map((address) => {
    const seen = observed.get(address) ?? new Map<string, bigint>()
    const said = stated.get(address) ?? new Map<string, bigint>()
    const amount = (asset: string) => max(seen.get(asset) ?? 0n, said.get(asset) ?? 0n)
    const mints = [...new Set([...seen.keys(), ...said.keys()])].filter((asset) => asset !== SOL).sort()
    return { address, lamports: amount(SOL), tokens: mints.map((mint) => ({ mint, amount: amount(mint) })) }
  })

/** Control over the wallet's accounts that changed, and the wallet's accounts that were closed. */
const controlEffects = (
  wallet: string,
  accounts: ReadonlyArray<string>,
  before: ReadonlyMap<string, AccountState | null>,
  after: ReadonlyMap<string, AccountState | null>,
  instructions: ReadonlyArray<LocatedInstruction>
) => {
  const controlChanges: Array<ControlChange> = []
  const closedAccounts: Array<ClosedAccount> = []
  const madeBy = (account: string, kind: ControlKind) =>
    instructions.find((ix) => ix.decoded?.controls?.some((c) => c.account === account && c.kind === kind) === true)?.ref
  const change = (account: string, kind: ControlKind, from: string | null, to: string | null) => {
    if (from === to) return
    const instruction = madeBy(account, kind)
    controlChanges.push({ account, kind, from, to, ...(instruction === undefined ? {} : { instruction }) })
  }
  const closed = (account: string, lamports: bigint) => {
    const closing = instructions.find((ix) => ix.decoded?.close?.account === account || ix.decoded?.solTransfer?.from === account)
    const destination = closing?.decoded?.close?.destination ?? closing?.decoded?.solTransfer?.to ?? null
    closedAccounts.push({ account, lamports, destination, ...(closing === undefined ? {} : { instruction: closing.ref }) })
  }
  for (const account of accounts) {
    const pre = before.get(account) ?? null
    const post = after.get(account) ?? null
    const gone = pre !== null && pre.lamports > 0n && (post === null || post.lamports === 0n)
    if (account === wallet) {
      if (pre !== null && post !== null && post.owner !== pre.owner) change(account, "owner_program", pre.owner, post.owner)
      if (post !== null && !sameBytes(pre?.data ?? new Uint8Array(), post.data)) change(account, "account_data", `${pre?.data.length ?? 0} bytes`, `${post.data.length} bytes`)
      continue
    }
    const tokenPre = tokenAccountState(pre)
    const tokenPost = tokenAccountState(post)
    if (tokenPre?.owner === wallet || (tokenPre === undefined && tokenPost?.owner === wallet)) {
      if (tokenPre !== undefined && gone) closed(account, pre.lamports)
      if (tokenPost === undefined) continue
      change(account, "token_owner", tokenPre?.owner ?? wallet, tokenPost.owner)
      change(account, "delegate", tokenPre?.delegate ?? null, tokenPost.delegate)
      change(account, "close_authority", tokenPre?.closeAuthority ?? null, tokenPost.closeAuthority)
      continue
    }
    const mintPre = mintState(pre)
    if (mintPre !== undefined && (mintPre.mintAuthority === wallet || mintPre.freezeAuthority === wallet)) {
      const mintPost = mintState(post)
      if (gone) closed(account, pre.lamports)
      if (mintPost === undefined) continue
      if (mintPre.mintAuthority === wallet) change(account, "mint_authority", wallet, mintPost.mintAuthority)
      if (mintPre.freezeAuthority === wallet) change(account, "freeze_authority", wallet, mintPost.freezeAuthority)
      continue
    }
    const noncePre = nonceState(pre)
    if (noncePre?.authority === wallet) {
      const noncePost = nonceState(post)
      if (gone) closed(account, pre.lamports)
      if (noncePost !== undefined) change(account, "nonce_authority", wallet, noncePost.authority)
    }
  }
  return { controlChanges, closedAccounts }
}
