/**
 * Issue 31: POST /wallets/<id>/sign judges a transaction by its whole simulated effect, not by its balance
 * changes alone. A wallet whose policy allows 100,000 lamports per transaction to one allowlisted
 * destination is asked, as an attacker with a `wallets` key would, to sign each family of hijack: its own
 * account assigned to a program; allocated, assigned and initialized as a token account of the attacker;
 * a token Approve to a stranger; SetAuthority on a mint it controls and on a token account it owns; a
 * CloseAccount to a stranger; a durable nonce a stranger controls; SOL sent from inside another program.
 * Each is refused (403 POLICY_VIOLATION at policy) with a reason naming the instruction, nothing is signed
 * and nothing changes on the ledger. A durable nonce the wallet controls is signed only after approval.
 */
import {
  AuthorityType,
  createAccount,
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createInitializeAccount3Instruction,
  createMint,
  createSetAuthorityInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  getMint,
  mintTo,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction
} from "@solana/web3.js"
import { beforeAll, describe, expect, it } from "vitest"
import { stakeInstruction } from "../../src/protocols/staking/instructions.js"
import { decodeStakePool, stakePoolAddress } from "../../src/protocols/staking/layout.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, waitSettled } from "../support/transactions.js"
import type { SignAnswer } from "../support/undeclaredAnswers.js"

const env = useServiceWithLedger({ ledger: { staking: true }, env: { LIQUID_STAKING_PROGRAM_ID: LOCAL_LIQUID_STAKING_PROGRAM_ID } })
const client = () => makeClient(env.service.baseUrl)
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")

/** Someone outside the service with SOL of their own: creates the mints, token and nonce accounts. */
const outsider = Keypair.generate()
const attacker = Keypair.generate().publicKey
const allowed = Keypair.generate().publicKey

let wallet: { id: string; publicKey: string }
let owner: PublicKey
/** the wallet is its mint authority and freeze authority */
let walletMint: PublicKey
/** a token account of the wallet holding 1,000 tokens, and an empty one */
let walletTokens: PublicKey
let walletEmpty: PublicKey

/** 200: the signature; otherwise the transaction record (403 refused, 202 at the approval gate). */
type SignReply = SignAnswer & { readonly id: string; readonly status: string; readonly policyDecision?: { readonly reasons: ReadonlyArray<string> } }

const sign = (transaction: Transaction) =>
  api<SignReply>(env.service.baseUrl, "POST", `/api/v1/wallets/${wallet.id}/sign`, {
    transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64")
  })

const unsigned = async (...instructions: Array<TransactionInstruction>) => {
  const { blockhash } = await connection().getLatestBlockhash()
  return new Transaction({ feePayer: owner, recentBlockhash: blockhash }).add(...instructions)
}

/** Refused at policy with every reason fragment in its error, and nothing signed. */
const expectRefused = async (transaction: Transaction, ...reasons: Array<string>) => {
  const refused = await sign(transaction)
  expect(refused.status, refused.body.error).toBe(403)
  expect(refused.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
  for (const reason of reasons) expect(refused.body.error).toContain(reason)
  expect(refused.body.data).toMatchObject({ type: "sign_transaction", status: "failed" })
  expect(refused.body.data.result ?? null).toBeNull()
  expect(refused.body.data.signedTransaction ?? null).toBeNull()
  const events = await client().audit.list({ query: { txId: refused.body.data.id } })
  expect(events.body.data.events.map((e: { eventType: string }) => e.eventType)).not.toContain("transaction.signed")
  return refused
}

const newNonce = async (authority: PublicKey) => {
  const nonce = Keypair.generate()
  const rent = await connection().getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH)
  const { blockhash } = await connection().getLatestBlockhash()
  const create = new Transaction({ feePayer: outsider.publicKey, recentBlockhash: blockhash }).add(
    ...SystemProgram.createNonceAccount({ fromPubkey: outsider.publicKey, noncePubkey: nonce.publicKey, authorizedPubkey: authority, lamports: rent }).instructions
  )
  create.sign(outsider, nonce)
  await connection().confirmTransaction(await connection().sendRawTransaction(create.serialize()), "confirmed")
  const state = await connection().getNonce(nonce.publicKey, "confirmed")
  if (state === null) throw new Error("the nonce account was not created")
  return { address: nonce.publicKey, value: state.nonce }
}

/** A transfer of 50,000 lamports to the allowlisted destination (within the policy), on a durable nonce. */
const onNonce = (nonce: { address: PublicKey; value: string }, authority: PublicKey) =>
  new Transaction({
    feePayer: owner,
    nonceInfo: { nonce: nonce.value, nonceInstruction: SystemProgram.nonceAdvance({ noncePubkey: nonce.address, authorizedPubkey: authority }) }
  }).add(SystemProgram.transfer({ fromPubkey: owner, toPubkey: allowed, lamports: 50_000 }))

describe("POST /wallets/<id>/sign refuses every hijack family", () => {
  beforeAll(async () => {
    const ledger = connection()
    await ledger.confirmTransaction(await ledger.requestAirdrop(outsider.publicKey, 20 * LAMPORTS_PER_SOL), "confirmed")
    // the allowlisted destination exists already (a payment of 50,000 lamports could not open an account)
    await ledger.confirmTransaction(await ledger.requestAirdrop(allowed, LAMPORTS_PER_SOL), "confirmed")
    wallet = await createWallet(env.service.baseUrl, 4_000_000_000)
    owner = new PublicKey(wallet.publicKey)
    walletMint = await createMint(ledger, outsider, owner, owner, 6)
    const tokenMint = await createMint(ledger, outsider, outsider.publicKey, null, 6)
    walletTokens = await createAccount(ledger, outsider, tokenMint, owner, Keypair.generate())
    walletEmpty = await createAccount(ledger, outsider, tokenMint, owner, Keypair.generate())
    await mintTo(ledger, outsider, tokenMint, walletTokens, outsider, 1_000_000_000)
    const policy = await client().policies.create({ body: {
      walletId: wallet.id, name: "one destination",
      rules: [{ type: "spending_limit", maxLamportsPerTx: 100_000 }, { type: "address_allowlist", addresses: [allowed.toBase58()] }]
    } })
    expect(policy.status).toBe(201)
  }, 60_000)

  it("still signs a transfer the policy allows", async () => {
    const signed = await sign(await unsigned(SystemProgram.transfer({ fromPubkey: owner, toPubkey: allowed, lamports: 50_000 })))
    expect(signed.status, signed.body.error).toBe(200)
  })

  it("assign: the wallet's account given to another program", async () => {
    await expectRefused(
      await unsigned(SystemProgram.assign({ accountPubkey: owner, programId: attacker })),
      "instruction 0 (System Program 11111111111111111111111111111111: assign) would assign the wallet's account to program " + attacker.toBase58()
    )
    expect((await connection().getAccountInfo(owner))?.owner.toBase58()).toBe(SystemProgram.programId.toBase58())
  })

  it("assign through the MCP tool wallet.sign_transaction (an HTTP client of /sign): refused the same way", async () => {
    const transaction = await unsigned(SystemProgram.assign({ accountPubkey: owner, programId: attacker }))
    const refused = await api<unknown>(env.service.baseUrl, "POST", "/mcp/call", {
      tool: "wallet.sign_transaction",
      args: { walletId: wallet.id, transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64") }
    })
    expect(refused.body.status).toBe("failure")
    expect(refused.body.error).toContain("POLICY_VIOLATION")
    expect(refused.body.error).toContain(`would assign the wallet's account to program ${attacker.toBase58()}`)
    expect((await connection().getAccountInfo(owner))?.owner.toBase58()).toBe(SystemProgram.programId.toBase58())
  })

  it("allocate + assign + InitializeAccount3: the wallet turned into the attacker's token account", async () => {
    await expectRefused(
      await unsigned(
        SystemProgram.allocate({ accountPubkey: owner, space: 165 }),
        SystemProgram.assign({ accountPubkey: owner, programId: TOKEN_PROGRAM_ID }),
        createInitializeAccount3Instruction(owner, walletMint, attacker)
      ),
      "instruction 1 (System Program 11111111111111111111111111111111: assign) would assign the wallet's account to program " + TOKEN_PROGRAM_ID.toBase58(),
      "instruction 0 (System Program 11111111111111111111111111111111: allocate) would give the wallet's account data (0 bytes -> 165 bytes)"
    )
    const account = await connection().getAccountInfo(owner)
    expect(account?.data.length).toBe(0)
    expect(account?.lamports).toBeGreaterThan(3_000_000_000)
  })

  it("token Approve to a stranger", async () => {
    await expectRefused(
      await unsigned(createApproveInstruction(walletTokens, attacker, owner, 1_000_000_000)),
      `instruction 0 (Token Program ${TOKEN_PROGRAM_ID.toBase58()}: approve) would hand the delegate of the wallet's account ${walletTokens.toBase58()} from nobody to ${attacker.toBase58()}`
    )
    expect((await getAccount(connection(), walletTokens)).delegate).toBeNull()
  })

  it("SetAuthority on a mint the wallet controls, and on a token account it owns", async () => {
    await expectRefused(
      await unsigned(createSetAuthorityInstruction(walletMint, owner, AuthorityType.MintTokens, attacker)),
      `(Token Program ${TOKEN_PROGRAM_ID.toBase58()}: set_authority) would hand the mint authority of the wallet's account ${walletMint.toBase58()} from ${owner.toBase58()} to ${attacker.toBase58()}`
    )
    await expectRefused(
      await unsigned(createSetAuthorityInstruction(walletMint, owner, AuthorityType.FreezeAccount, attacker)),
      `would hand the freeze authority of the wallet's account ${walletMint.toBase58()} from ${owner.toBase58()} to ${attacker.toBase58()}`
    )
    await expectRefused(
      await unsigned(createSetAuthorityInstruction(walletTokens, owner, AuthorityType.AccountOwner, attacker)),
      `would hand the owner of the wallet's account ${walletTokens.toBase58()} from ${owner.toBase58()} to ${attacker.toBase58()}`
    )
    await expectRefused(
      await unsigned(createSetAuthorityInstruction(walletTokens, owner, AuthorityType.CloseAccount, attacker)),
      `would hand the close authority of the wallet's account ${walletTokens.toBase58()} from nobody to ${attacker.toBase58()}`
    )
    const mint = await getMint(connection(), walletMint)
    expect(mint.mintAuthority?.toBase58()).toBe(owner.toBase58())
    expect(mint.freezeAuthority?.toBase58()).toBe(owner.toBase58())
    expect((await getAccount(connection(), walletTokens)).owner.toBase58()).toBe(owner.toBase58())
  })

  it("CloseAccount to a stranger", async () => {
    const rent = (await connection().getAccountInfo(walletEmpty))?.lamports ?? 0
    await expectRefused(
      await unsigned(createCloseAccountInstruction(walletEmpty, attacker, owner)),
      `instruction 0 (Token Program ${TOKEN_PROGRAM_ID.toBase58()}: close_account) would close the wallet's account ${walletEmpty.toBase58()} and send its ${rent} lamports to ${attacker.toBase58()}`
    )
    expect(await connection().getAccountInfo(walletEmpty)).not.toBeNull()
    expect(await connection().getBalance(attacker)).toBe(0)
  })

  it("a durable nonce advanced by a stranger; one the wallet controls is signed only after approval", async () => {
    const stranger = Keypair.generate()
    const theirs = await newNonce(stranger.publicKey)
    const transaction = onNonce(theirs, stranger.publicKey)
    transaction.partialSign(stranger)
    await expectRefused(transaction, `durable nonce ${theirs.address.toBase58()} is controlled by ${stranger.publicKey.toBase58()}, not the wallet`)
    expect((await connection().getNonce(theirs.address, "confirmed"))?.nonce).toBe(theirs.value)

    const ours = await newNonce(owner)
    const gated = await sign(onNonce(ours, owner))
    expect(gated.status, gated.body.error).toBe(202)
    expect(gated.body.data).toMatchObject({ status: "approval_gate", policyDecision: { decision: "require_approval" } })
    expect(gated.body.data.policyDecision?.reasons.join(" ")).toContain(`durable nonce ${ours.address.toBase58()}: the signed transaction never expires`)
    expect((await client().transactions.approve({ params: { txId: gated.body.data.id } })).status).toBe(200)
    const settled = (await waitSettled(env.service.baseUrl, gated.body.data.id)).body.data
    expect(settled).toMatchObject({ status: "confirmed", result: { submitted: false } })
  })

  it("SOL sent from inside another program (the liquid-staking program's CPI transfer)", async () => {
    const programId = new PublicKey(LOCAL_LIQUID_STAKING_PROGRAM_ID)
    const poolAddress = stakePoolAddress(programId)
    const pool = decodeStakePool((await connection().getAccountInfo(poolAddress))!.data)!
    const stakerLst = getAssociatedTokenAddressSync(pool.lstMint, owner)
    const balance = await connection().getBalance(owner)
    const refused = await expectRefused(
      await unsigned(
        createAssociatedTokenAccountIdempotentInstruction(owner, stakerLst, owner, pool.lstMint),
        stakeInstruction({ programId, staker: owner, lstMint: pool.lstMint, stakerLst }, 1_000_000_000n, 1n)
      ),
      "exceeds maxLamportsPerTx 100000",
      `${poolAddress.toBase58()} is not allowlisted`
    )
    // the outflow policy saw is the stake moved by the program plus the LST account's rent and the fee
    expect(refused.body.error).toMatch(/amount 10020\d{5} exceeds maxLamportsPerTx/)
    expect(await connection().getBalance(owner)).toBe(balance)
  })
})
