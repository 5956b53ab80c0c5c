/**
 * flash_loan_bundle through the pipeline (docs/decisions/lending.md): critical, so it waits at the approval gate;
 * after approval the borrow, the caller's instructions and the repayment with its fee run in ONE transaction and
 * confirm. A loan with no repayment later in the transaction (the borrow instruction alone, as a
 * custom_instruction_bundle) is refused by the program's instruction introspection (7223) when the pipeline runs
 * it in simulation, before anything is signed; and a loan whose repayment cannot be paid when the signed
 * transaction lands (the wallet gave away its fee money while the bundle waited for approval) fails on chain as a
 * whole: nothing leaves the reserve. The caller's part keeps the bundle guards (no foreign signer).
 */
import { createTransferInstruction, getAssociatedTokenAddressSync, NATIVE_MINT } from "@solana/spl-token"
import { Connection, Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { flashBorrowInstruction } from "../../src/protocols/lending/instructions.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../../src/protocols/lending/lendingIds.js"
import { decodeReserve, flashFee, reserveAddress } from "../../src/protocols/lending/layout.js"
import { useServiceWithLedger } from "../support/harness.js"
import { defined } from "../support/defined.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger({ ledger: { lending: true }, env: { LENDING_MARKET_PROGRAM_ID: LOCAL_LENDING_MARKET_PROGRAM_ID } })
const PROGRAM_ID = new PublicKey(LOCAL_LENDING_MARKET_PROGRAM_ID)
const MEMO_PROGRAM = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
const SOL = 1_000_000_000n
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")

/** An instruction as a caller writes it in a bundle: accounts with both flags, data as base64. */
const raw = (ix: TransactionInstruction) => ({
  programId: ix.programId.toBase58(),
  accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  data: Buffer.from(ix.data).toString("base64")
})
const memo = (signer: PublicKey, text: string) => new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [{ pubkey: signer, isSigner: true, isWritable: false }], data: Buffer.from(text) })

const reserveState = async (mint: PublicKey) => decodeReserve((await connection().getAccountInfo(reserveAddress(PROGRAM_ID, mint)))!.data)!

const run = async (body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body
}

describe("flash_loan_bundle", () => {
  it("waits at the approval gate, then borrows, runs the caller's instructions and repays with the fee in one transaction", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
    const owner = new PublicKey(wallet.publicKey)
    const account = getAssociatedTokenAddressSync(NATIVE_MINT, owner)
    const amount = 10n * SOL
    // the caller's part: a memo, and moving the borrowed 10 SOL (wrapped) through the wallet's own account
    const instructions = [raw(memo(owner, "flash loan in hand")), raw(createTransferInstruction(account, account, owner, amount))]
    const before = await reserveState(NATIVE_MINT)
    const gated = await run({ walletId: wallet.id, type: "flash_loan_bundle", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: amount.toString(), instructions } })
    expect(gated.data).toMatchObject({ status: "approval_gate", policyDecision: { decision: "require_approval", riskTier: "critical" } })

    const lamportsBefore = BigInt(await connection().getBalance(owner))
    expect((await api(env.service.baseUrl, "POST", `/api/v1/transactions/${gated.data.id}/approve`)).status).toBe(200)
    const settled = (await waitSettled(env.service.baseUrl, gated.data.id, 60_000)).body.data
    expect(settled.status).toBe("confirmed")

    const landed = await connection().getTransaction(defined(settled.signature, "the landed signature"), { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    const logs = landed?.meta?.logMessages?.join("\n") ?? ""
    expect(logs).toContain("flash loan in hand")
    // borrow, the caller's two, repay: all in this one transaction, the reserve's program invoked twice
    expect(logs.split(`Program ${LOCAL_LENDING_MARKET_PROGRAM_ID} success`).length - 1).toBe(2)
    const fee = flashFee(amount, before.flashFeeBps)
    const after = await reserveState(NATIVE_MINT)
    expect(after.available).toBe(before.available + fee)
    expect(after.flashOutstanding).toBe(0n)
    // the wallet paid the fee (and the transaction's own fee); the wrapped-SOL account it opened is closed again
    const paid = lamportsBefore - BigInt(await connection().getBalance(owner))
    expect(paid).toBeGreaterThanOrEqual(fee)
    expect(paid).toBeLessThan(fee + 100_000n)
    expect(await connection().getAccountInfo(account)).toBeNull()
  })

  it("is refused by the program when no repayment follows the loan in the transaction, before anything is signed", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const usdc = mintBySymbol("USDC").address
    const reserve = await reserveState(usdc)
    const loan = flashBorrowInstruction(PROGRAM_ID, usdc, reserve.vault, getAssociatedTokenAddressSync(usdc, new PublicKey(wallet.publicKey)), 1_000_000_000n)
    const refused = await run({ walletId: wallet.id, type: "custom_instruction_bundle", protocol: "lending-market", intent: { instructions: [raw(loan)] } })
    expect(refused).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.error).toContain(`lending-market program ${LOCAL_LENDING_MARKET_PROGRAM_ID} refused: error 7223 flash loan not repaid in this transaction`)
    expect(refused.data.signature).toBeUndefined()
    expect((await reserveState(usdc)).available).toBe(reserve.available)
  })

  it("refuses at build a caller instruction that names another account as a signer", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const other = Keypair.generate().publicKey
    const refused = await run({
      walletId: wallet.id, type: "flash_loan_bundle", protocol: "lending-market",
      intent: { mint: NATIVE_MINT.toBase58(), amount: "1000000000", instructions: [raw(memo(other, "not mine"))] }
    })
    expect(refused).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.error).toContain(`intent.instructions[0].accounts[0]: ${other.toBase58()} is marked as a signer`)
  })

  it("is not signed when, approved after the wallet gave its fee money away, the repayment could not be paid: the loan never leaves the reserve", async () => {
    const wallet = await createWallet(env.service.baseUrl, 8_000_000_000)
    const usdc = mintBySymbol("USDC").address
    const lend = (type: string, mint: PublicKey, amount: string) => run({ walletId: wallet.id, type, protocol: "lending-market", intent: { mint: mint.toBase58(), amount } })
    // the wallet's fee money: 100 USDC borrowed against 5 SOL
    expect((await lend("lend_supply", NATIVE_MINT, "5000000000")).data.status).toBe("confirmed")
    expect((await lend("lend_borrow", usdc, "100000000")).data.status).toBe("confirmed")

    const owner = new PublicKey(wallet.publicKey)
    const gated = await run({
      walletId: wallet.id, type: "flash_loan_bundle", protocol: "lending-market",
      intent: { mint: usdc.toBase58(), amount: "1000000000", instructions: [raw(memo(owner, "flash loan in hand"))] }
    })
    expect(gated.data.status).toBe("approval_gate")
    // while it waits, the wallet sends all its USDC away: the 0.9 USDC fee can no longer be paid
    const away = await run({ walletId: wallet.id, type: "transfer_spl", protocol: "spl-token", intent: { destination: Keypair.generate().publicKey.toBase58(), mint: usdc.toBase58(), amount: "100000000" } })
    expect(away.data.status).toBe("confirmed")
    const before = await reserveState(usdc)

    expect((await api(env.service.baseUrl, "POST", `/api/v1/transactions/${gated.data.id}/approve`)).status).toBe(200)
    const settled = (await waitSettled(env.service.baseUrl, gated.data.id, 60_000)).body
    // approvals outlive blockhashes (issue 31): built again after approval and simulated before signing, the
    // failing repayment shows there and nothing is signed (the all-or-nothing on chain: test/programs/lendingMarket.test.ts)
    expect(settled).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(settled.error).toContain("simulation failed after approval")
    expect(settled.data.signature).toBeUndefined()
    const after = await reserveState(usdc)
    expect(after.available).toBe(before.available)
    expect(after.flashOutstanding).toBe(0n)
  })
})
