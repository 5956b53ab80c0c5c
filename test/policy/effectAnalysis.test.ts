/**
 * The effect analysis itself (src/policy/effect), pure, on messages compiled by web3.js and account states
 * written with @solana/spl-token's layouts: stated transfers as a floor under the balances, the three
 * shapes of inner instructions RPCs answer, what is explained and what is not, durable nonces, and the
 * baseline judgement (a handover is refused, giving control up or closing to the wallet is not).
 */
import { ACCOUNT_SIZE, AccountLayout, AccountState as TokenAccountStatus, TOKEN_PROGRAM_ID, createCloseAccountInstruction, createTransferInstruction } from "@solana/spl-token"
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js"
import bs58 from "bs58"
import { describe, expect, it } from "vitest"
import { accountsToRead, analyzeEffect, EffectInputError } from "../../src/policy/effect/analyzeEffect.js"
import type { AccountState } from "../../src/policy/effect/accountState.js"
import { programCatalog } from "../../src/policy/effect/programCatalog.js"
import { judgeEffect } from "../../src/policy/effectJudgement.js"
import { viewMessage } from "../../src/protocols/messageView.js"

const wallet = Keypair.generate().publicKey
const other = Keypair.generate().publicKey
const mint = Keypair.generate().publicKey
const catalog = programCatalog()
const SYSTEM = SystemProgram.programId.toBase58()

const messageOf = (...instructions: Array<TransactionInstruction>) =>
  viewMessage(new Transaction({ feePayer: wallet, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(...instructions).serializeMessage())

const system = (lamports: bigint): AccountState => ({ lamports, owner: SYSTEM, data: new Uint8Array() })
const tokenAccount = (owner: PublicKey, amount: bigint, lamports = 2_039_280n): AccountState => {
  const data = Buffer.alloc(ACCOUNT_SIZE)
  AccountLayout.encode({
    mint, owner, amount, delegateOption: 0, delegate: PublicKey.default, state: TokenAccountStatus.Initialized,
    isNativeOption: 0, isNative: 0n, delegatedAmount: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default
  }, data)
  return { lamports, owner: TOKEN_PROGRAM_ID.toBase58(), data }
}

const nonceAccount = (authority: PublicKey, lamports: bigint): AccountState => {
  const data = Buffer.alloc(80)
  data.writeUInt32LE(1, 0)
  data.writeUInt32LE(1, 4)
  authority.toBuffer().copy(data, 8)
  return { lamports, owner: SYSTEM, data }
}

/** Analyses `message` with the states given per address (before, after); unlisted accounts are absent. */
const analyse = (message: ReturnType<typeof messageOf>, states: Record<string, [AccountState | null, AccountState | null]>, inner: unknown = []) => {
  const accounts = accountsToRead(message, wallet.toBase58())
  return analyzeEffect({
    wallet: wallet.toBase58(), message, accounts, catalog, innerInstructions: inner,
    before: accounts.map((a) => states[a]?.[0] ?? null),
    after: accounts.map((a) => states[a]?.[1] ?? null)
  })
}

describe("balances and the instructions' own word", () => {
  it("takes the stated transfer when the balance difference shows less (a payment arrived between the reads)", () => {
    const message = messageOf(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: other, lamports: 1_000_000 }))
    const effect = analyse(message, { [wallet.toBase58()]: [system(10_000_000n), system(9_600_000n)], [other.toBase58()]: [system(1_000_000n), system(2_000_000n)] })
    expect(effect.solOutflowLamports).toBe(1_005_000n)
    expect(effect.feeLamports).toBe(5_000n)
    expect(effect.recipients).toEqual([{ address: other.toBase58(), lamports: 1_000_000n, tokens: [] }])
    expect(effect.instructions).toEqual([{ index: 0, programId: SYSTEM, program: "System Program", action: "transfer", explained: true }])
  })

  it("reads tokens leaving the wallet's account and reaching the other owner's", () => {
    const source = Keypair.generate().publicKey
    const destination = Keypair.generate().publicKey
    const message = messageOf(createTransferInstruction(source, destination, wallet, 400n))
    const effect = analyse(message, {
      [wallet.toBase58()]: [system(10_000_000n), system(9_995_000n)],
      [source.toBase58()]: [tokenAccount(wallet, 1_000n), tokenAccount(wallet, 600n)],
      [destination.toBase58()]: [tokenAccount(other, 0n), tokenAccount(other, 400n)]
    })
    expect(effect.tokenOutflows).toEqual([{ mint: mint.toBase58(), amount: 400n }])
    expect(effect.tokenChanges).toEqual([{ account: source.toBase58(), mint: mint.toBase58(), before: 1_000n, after: 600n }])
    expect(effect.recipients).toEqual([{ address: other.toBase58(), lamports: 0n, tokens: [{ mint: mint.toBase58(), amount: 400n }] }])
  })
})

describe("SOL the wallet holds in the nonce accounts it controls", () => {
  it("counts a withdrawal to someone else as an outflow, and one to the wallet as none", () => {
    const nonce = Keypair.generate().publicKey
    const withdraw = (to: PublicKey) => messageOf(SystemProgram.nonceWithdraw({ noncePubkey: nonce, authorizedPubkey: wallet, toPubkey: to, lamports: 5_000_000 }))
    const away = analyse(withdraw(other), {
      [wallet.toBase58()]: [system(10_000_000n), system(9_995_000n)],
      [nonce.toBase58()]: [nonceAccount(wallet, 6_447_680n), nonceAccount(wallet, 1_447_680n)],
      [other.toBase58()]: [null, system(5_000_000n)]
    })
    expect(away.solOutflowLamports).toBe(5_005_000n)
    expect(away.recipients).toEqual([{ address: other.toBase58(), lamports: 5_000_000n, tokens: [] }])
    const home = analyse(withdraw(wallet), {
      [wallet.toBase58()]: [system(10_000_000n), system(14_995_000n)],
      [nonce.toBase58()]: [nonceAccount(wallet, 6_447_680n), nonceAccount(wallet, 1_447_680n)]
    })
    expect(home.solOutflowLamports).toBe(5_000n)
    expect(home.recipients).toEqual([])
  })
})

describe("inner instructions", () => {
  const program = Keypair.generate().publicKey
  const viaProgram = () => messageOf({ programId: program, keys: [{ pubkey: wallet, isSigner: true, isWritable: true }, { pubkey: other, isSigner: false, isWritable: true }, { pubkey: SystemProgram.programId, isSigner: false, isWritable: false }], data: Buffer.from([7]) })
  const transferData = bs58.encode(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: other, lamports: 3_000 }).data)

  it("decodes a compiled CPI (account indexes) and a partially decoded one (addresses) alike", () => {
    const message = viaProgram()
    const index = (key: PublicKey) => message.accountKeys.indexOf(key.toBase58())
    const states = { [wallet.toBase58()]: [system(10_000_000n), system(9_992_000n)] as [AccountState, AccountState] }
    for (const inner of [
      { programIdIndex: index(SystemProgram.programId), accounts: [index(wallet), index(other)], data: transferData, stackHeight: 2 },
      { programId: SYSTEM, accounts: [wallet.toBase58(), other.toBase58()], data: transferData, stackHeight: 2 }
    ]) {
      const effect = analyse(message, states, [{ index: 0, instructions: [inner] }])
      expect(effect.programs).toEqual([program.toBase58(), SYSTEM])
      expect(effect.instructions[1]).toEqual({ index: 0, inner: 0, programId: SYSTEM, program: "System Program", action: "transfer", explained: true })
      expect(effect.instructions[0]).toMatchObject({ program: "unknown program", action: "unknown instruction 7", explained: false })
      expect(effect.recipients).toEqual([{ address: other.toBase58(), lamports: 3_000n, tokens: [] }])
    }
  })

  it("reads a jsonParsed CPI (a close to a stranger), and refuses an answer without inner instructions", () => {
    const message = viaProgram()
    const account = other.toBase58()
    const effect = analyse(message, { [account]: [tokenAccount(wallet, 0n), null] }, [
      { index: 0, instructions: [{ program: "spl-token", programId: TOKEN_PROGRAM_ID.toBase58(), parsed: { type: "closeAccount", info: { account, destination: Keypair.generate().publicKey.toBase58(), owner: wallet.toBase58() } }, stackHeight: 2 }] }
    ])
    expect(effect.closedAccounts).toEqual([expect.objectContaining({ account, lamports: 2_039_280n, instruction: { index: 0, inner: 0 } })])
    expect(judgeEffect(effect, new Set([program.toBase58()])).reasons).toEqual([
      expect.stringContaining(`instruction 0, inner 0 (Token Program ${TOKEN_PROGRAM_ID.toBase58()}: closeAccount) would close the wallet's account ${account}`)
    ])
    expect(() => analyse(message, {}, null)).toThrow(EffectInputError)
  })
})

describe("the baseline judgement", () => {
  it("refuses an unexplained program unless the wallet's policy allows it", () => {
    const program = Keypair.generate().publicKey
    const effect = analyse(messageOf({ programId: program, keys: [], data: Buffer.from([1, 2]) }), {})
    expect(judgeEffect(effect, new Set()).reasons).toEqual([`instruction 0 (unknown program ${program.toBase58()}: unknown instruction 1) cannot be explained: the service does not know what it does to the wallet (a program_allowlist rule of the wallet's policy naming ${program.toBase58()} allows it)`])
    expect(judgeEffect(effect, new Set([program.toBase58()])).decision).toBe("allow")
  })

  it("lets the wallet close its own account to itself, and refuses the same close to someone else", () => {
    const account = Keypair.generate().publicKey
    const toSelf = analyse(messageOf(createCloseAccountInstruction(account, wallet, wallet)), { [account.toBase58()]: [tokenAccount(wallet, 0n), null] })
    expect(toSelf.closedAccounts).toEqual([{ account: account.toBase58(), lamports: 2_039_280n, destination: wallet.toBase58(), instruction: { index: 0 } }])
    expect(judgeEffect(toSelf, new Set()).decision).toBe("allow")
    const away = analyse(messageOf(createCloseAccountInstruction(account, other, wallet)), { [account.toBase58()]: [tokenAccount(wallet, 0n), null] })
    expect(judgeEffect(away, new Set()).decision).toBe("deny")
  })

  it("finds a durable nonce only in the first instruction, its authority read from the nonce account", () => {
    const nonce = Keypair.generate().publicKey
    const stranger = Keypair.generate().publicKey
    const theirs = nonceAccount(stranger, 1_447_680n)
    // the instruction names the wallet as authority; the account says who really controls it
    const advance = SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: wallet })
    const first = analyse(messageOf(advance), { [nonce.toBase58()]: [theirs, theirs] })
    expect(first.durableNonce).toEqual({ account: nonce.toBase58(), authority: stranger.toBase58() })
    expect(judgeEffect(first, new Set()).decision).toBe("deny")
    const later = analyse(messageOf(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: other, lamports: 1 }), advance), { [nonce.toBase58()]: [theirs, theirs] })
    expect(later.durableNonce).toBeUndefined()
  })
})
