/**
 * Issue 31 on the local ledger through the real service: what the service cannot explain is refused naming
 * the instruction, until a program_allowlist of the wallet's policy names the program; SOL that the
 * caller's own instructions move from inside another program counts against a spending limit in the
 * pipeline; the effect_bounds rule (bad input refused with the field named, nothing stored) bounds the
 * simulated effect on the pipeline's transactions, on /sign and in a what-if.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createInitializeMint2Instruction,
  createInitializePermanentDelegateInstruction,
  ExtensionType,
  getAssociatedTokenAddressSync,
  getMintLen,
  TOKEN_2022_PROGRAM_ID
} from "@solana/spl-token"
import { Connection, Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import type { PolicyRuleEncoded } from "../../schemas/policy.js"
import { stakeInstruction } from "../../src/protocols/staking/instructions.js"
import { decodeStakePool, stakePoolAddress } from "../../src/protocols/staking/layout.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import type { SignAnswer } from "../support/undeclaredAnswers.js"

const env = useServiceWithLedger({ ledger: { staking: true }, env: { LIQUID_STAKING_PROGRAM_ID: LOCAL_LIQUID_STAKING_PROGRAM_ID } })
const client = () => makeClient(env.service.baseUrl)
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")
const SYSTEM = SystemProgram.programId.toBase58()

type SignReply = SignAnswer & { readonly id: string; readonly status: string }

const sign = async (walletId: string, owner: PublicKey, instructions: ReadonlyArray<TransactionInstruction>, signers: ReadonlyArray<Keypair> = []) => {
  const { blockhash } = await connection().getLatestBlockhash()
  const transaction = new Transaction({ feePayer: owner, recentBlockhash: blockhash }).add(...instructions)
  if (signers.length > 0) transaction.partialSign(...signers)
  return api<SignReply>(env.service.baseUrl, "POST", `/api/v1/wallets/${walletId}/sign`, {
    transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64")
  })
}

const policy = (walletId: string, rules: ReadonlyArray<PolicyRuleEncoded>) => client().policies.create({ body: { walletId, name: "effect", rules } })

const run = async (body: Record<string, unknown>) => (await waitSettled(env.service.baseUrl, (await submit(env.service.baseUrl, body)).body.data.id)).body

describe("what the service cannot explain", () => {
  it("refuses a Token-2022 extension it does not read, naming the instruction, until a program_allowlist names the program", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const owner = new PublicKey(wallet.publicKey)
    const mint = Keypair.generate()
    const space = getMintLen([ExtensionType.PermanentDelegate])
    const lamports = await connection().getMinimumBalanceForRentExemption(space)
    const instructions = [
      SystemProgram.createAccount({ fromPubkey: owner, newAccountPubkey: mint.publicKey, space, lamports, programId: TOKEN_2022_PROGRAM_ID }),
      createInitializePermanentDelegateInstruction(mint.publicKey, Keypair.generate().publicKey, TOKEN_2022_PROGRAM_ID),
      createInitializeMint2Instruction(mint.publicKey, 0, owner, null, TOKEN_2022_PROGRAM_ID)
    ]
    const refused = await sign(wallet.id, owner, instructions, [mint])
    expect(refused.status, refused.body.error).toBe(403)
    expect(refused.body).toMatchObject({ errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.error).toContain(`instruction 1 (Token-2022 Program ${TOKEN_2022_PROGRAM_ID.toBase58()}: unknown instruction 35) cannot be explained`)
    expect(await connection().getAccountInfo(mint.publicKey)).toBeNull()

    expect((await policy(wallet.id, [{ type: "program_allowlist", programIds: [SYSTEM, TOKEN_2022_PROGRAM_ID.toBase58()] }])).status).toBe(201)
    const signed = await sign(wallet.id, owner, instructions, [mint])
    expect(signed.status, signed.body.error).toBe(200)
  })
})

describe("SOL moved from inside another program by the caller's own instructions", () => {
  it("counts against the spending limit of a custom_instruction_bundle", async () => {
    const wallet = await createWallet(env.service.baseUrl, 3_000_000_000)
    const owner = new PublicKey(wallet.publicKey)
    expect((await policy(wallet.id, [{ type: "spending_limit", maxLamportsPerTx: 100_000 }])).status).toBe(201)
    const programId = new PublicKey(LOCAL_LIQUID_STAKING_PROGRAM_ID)
    const pool = decodeStakePool((await connection().getAccountInfo(stakePoolAddress(programId)))!.data)!
    const stakerLst = getAssociatedTokenAddressSync(pool.lstMint, owner)
    const raw = (ix: TransactionInstruction) => ({
      programId: ix.programId.toBase58(),
      accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
      data: Buffer.from(ix.data).toString("base64")
    })
    const denied = await run({
      walletId: wallet.id, type: "custom_instruction_bundle", protocol: "liquid-staking",
      intent: { instructions: [raw(createAssociatedTokenAccountIdempotentInstruction(owner, stakerLst, owner, pool.lstMint)), raw(stakeInstruction({ programId, staker: owner, lstMint: pool.lstMint, stakerLst }, 1_000_000_000n, 1n))] }
    })
    expect(denied).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    // the stake the program moved plus the LST account's rent (the fee is not spend)
    const rent = await connection().getMinimumBalanceForRentExemption(165)
    expect(denied.error).toContain(`spending_limit: amount ${1_000_000_000 + rent} exceeds maxLamportsPerTx 100000`)
    expect(denied.data.signature).toBeUndefined()
  })
})

describe("effect_bounds", () => {
  it("refuses a malformed rule naming the field, and stores nothing", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    for (const [rule, field] of [
      [{ type: "effect_bounds", maxSolOutflow: 1 }, "rules[0].maxSolOutflow"],
      [{ type: "effect_bounds", maxTokenOutflows: [{ mint: SYSTEM, maxAmount: "-1" }] }, "rules[0].maxTokenOutflows[0].maxAmount"],
      [{ type: "effect_bounds", allowedRecipients: ["nope"] }, "rules[0].allowedRecipients[0]"],
      [{ type: "effect_bounds", forbidCloses: 1 }, "rules[0].forbidCloses"]
    ] as const) {
      const refused = await api(env.service.baseUrl, "POST", "/api/v1/policies", { walletId: wallet.id, name: "bad", rules: [rule] })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
      expect(refused.body.error).toContain(field)
    }
    expect((await client().policies.listByWallet({ params: { walletId: wallet.id } })).body.data.total).toBe(0)
  })

  it("bounds the pipeline's SOL outflow (fee included) and who may receive it", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const friend = Keypair.generate().publicKey.toBase58()
    const stranger = Keypair.generate().publicKey.toBase58()
    expect((await policy(wallet.id, [{ type: "effect_bounds", maxSolOutflowLamports: 10_010_000, allowedRecipients: [friend] }])).status).toBe(201)
    const transfer = (destination: string, lamports: number) => run({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports } })

    expect((await transfer(friend, 10_000_000)).data.status).toBe("confirmed")
    const tooMuch = await transfer(friend, 10_010_000)
    expect(tooMuch).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(tooMuch.error).toMatch(/effect_bounds: the wallet would send 100\d{5} lamports \(fee included\), above maxSolOutflowLamports 10010000/)
    const elsewhere = await transfer(stranger, 1_000_000)
    expect(elsewhere.error).toContain(`effect_bounds: ${stranger} would receive value and is not in allowedRecipients`)
    expect(await connection().getBalance(new PublicKey(stranger))).toBe(0)

    // a what-if judges the effect its fields describe
    const whatIf = await client().policies.evaluate({ body: { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", destination: stranger, amountLamports: 1 } })
    expect(whatIf.body.data).toMatchObject({ decision: "deny", reasons: [expect.stringContaining(`${stranger} would receive value`)] })
  })

  it("forbids closing the wallet's own token account on /sign, which the baseline allows", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const owner = new PublicKey(wallet.publicKey)
    const programId = new PublicKey(LOCAL_LIQUID_STAKING_PROGRAM_ID)
    const pool = decodeStakePool((await connection().getAccountInfo(stakePoolAddress(programId)))!.data)!
    const account = getAssociatedTokenAddressSync(pool.lstMint, owner)
    // signed, not submitted by the service: the caller sends it
    const opened = await sign(wallet.id, owner, [createAssociatedTokenAccountIdempotentInstruction(owner, account, owner, pool.lstMint)])
    await connection().confirmTransaction(await connection().sendRawTransaction(Buffer.from(opened.body.data.signedTransaction!, "base64")), "confirmed")
    expect(await connection().getAccountInfo(account)).not.toBeNull()

    expect((await policy(wallet.id, [{ type: "effect_bounds", forbidCloses: true }])).status).toBe(201)
    const refused = await sign(wallet.id, owner, [createCloseAccountInstruction(account, owner, owner)])
    expect(refused.status).toBe(403)
    expect(refused.body.error).toContain(`effect_bounds (forbidCloses): instruction 0 (Token Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: close_account) would close the wallet's account ${account.toBase58()}`)
    expect(await connection().getAccountInfo(account)).not.toBeNull()
  })
})
