/**
 * cpi_call and custom_instruction_bundle through the pipeline (docs/decisions/instruction-bundles.md):
 * critical tier, so they wait at the approval gate by default; program_allowlist applies to every program
 * they name; an instruction that names another of our wallets as a signer is refused and nothing is signed.
 */
import { Connection, Keypair, PublicKey, SystemProgram } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { defined } from "../support/defined.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")
const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111"

/** A System program transfer written out as raw accounts and base64 data, as a caller would send it. */
const rawTransfer = (from: string, to: string, lamports: number) => {
  const ix = SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: new PublicKey(to), lamports })
  return {
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: ix.data.toString("base64")
  }
}
const memo = (signer: string, text: string) => ({
  programId: MEMO_PROGRAM,
  accounts: [{ pubkey: signer, isSigner: true, isWritable: false }],
  data: Buffer.from(text).toString("base64")
})

describe("cpi_call and custom_instruction_bundle", () => {
  it("waits at the approval gate by default (critical) and confirms after approve", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "cpi_call", protocol: "system-program", intent: rawTransfer(wallet.publicKey, destination, 5_000_000)
    })
    expect(created.status).toBe(201)
    const gated = (await waitSettled(env.service.baseUrl, created.body.data.id)).body.data
    expect(gated).toMatchObject({ status: "approval_gate", policyDecision: { decision: "require_approval", riskTier: "critical" } })
    expect(await connection().getBalance(new PublicKey(destination))).toBe(0)

    expect((await client().transactions.approve({ params: { txId: created.body.data.id } })).status).toBe(200)
    const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body.data
    expect(settled.status).toBe("confirmed")
    expect(await connection().getBalance(new PublicKey(destination))).toBe(5_000_000)
  })

  it("runs a bundle of a transfer and a memo in one transaction after approve", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "custom_instruction_bundle", protocol: "system-program",
      intent: { instructions: [rawTransfer(wallet.publicKey, destination, 3_000_000), memo(wallet.publicKey, "bundle ok")] }
    })
    expect((await waitSettled(env.service.baseUrl, created.body.data.id)).body.data.status).toBe("approval_gate")
    await client().transactions.approve({ params: { txId: created.body.data.id } })
    const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body.data
    expect(settled.status).toBe("confirmed")
    expect(await connection().getBalance(new PublicKey(destination))).toBe(3_000_000)
    const onChain = await connection().getTransaction(defined(settled.signature, "the signature"), { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    expect(onChain?.meta?.logMessages?.join("\n")).toContain("bundle ok")
  })

  it("is denied at policy when a program it names is not on the program_allowlist", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const policy = await client().policies.create({ body: {
      walletId: wallet.id, name: "system only", rules: [{ type: "program_allowlist", programIds: ["11111111111111111111111111111111", COMPUTE_BUDGET_PROGRAM] }]
    } })
    expect(policy.status).toBe(201)
    const created = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "custom_instruction_bundle", protocol: "system-program",
      intent: { instructions: [rawTransfer(wallet.publicKey, Keypair.generate().publicKey.toBase58(), 1_000_000), memo(wallet.publicKey, "not allowed")] }
    })
    const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body
    expect(settled).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(settled.error).toContain(MEMO_PROGRAM)
    expect(settled.data.signature).toBeUndefined()

    // a program passed as an account can be reached by CPI: it is checked too
    const transfer = rawTransfer(wallet.publicKey, Keypair.generate().publicKey.toBase58(), 1_000_000)
    const viaCpi = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "cpi_call", protocol: "system-program",
      intent: { ...transfer, accounts: [...transfer.accounts, { pubkey: MEMO_PROGRAM, isSigner: false, isWritable: false }] }
    })
    const denied = (await waitSettled(env.service.baseUrl, viaCpi.body.data.id)).body
    expect(denied).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(denied.error).toContain(`program ${MEMO_PROGRAM} is not allowlisted`)
    // without it, the same transfer passes policy and waits for its approval
    const plain = await submit(env.service.baseUrl, { walletId: wallet.id, type: "cpi_call", protocol: "system-program", intent: transfer })
    expect((await waitSettled(env.service.baseUrl, plain.body.data.id)).body.data.status).toBe("approval_gate")
  })

  it("shows policy the SOL its System instructions send: an address_blocklist denies a raw transfer", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const blocked = Keypair.generate().publicKey.toBase58()
    await client().policies.create({ body: { walletId: wallet.id, name: "blocked", rules: [{ type: "address_blocklist", addresses: [blocked] }] } })
    const created = await submit(env.service.baseUrl, { walletId: wallet.id, type: "cpi_call", protocol: "system-program", intent: rawTransfer(wallet.publicKey, blocked, 1_000_000) })
    const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body
    expect(settled).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(settled.error).toContain(blocked)
    expect(await connection().getBalance(new PublicKey(blocked))).toBe(0)
  })

  it("refuses at build an instruction naming another of our wallets as signer, and signs nothing", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const victim = await createWallet(env.service.baseUrl, 1_000_000_000)
    const thief = Keypair.generate().publicKey.toBase58()
    const victimBefore = await connection().getBalance(new PublicKey(victim.publicKey))
    const walletBefore = await connection().getBalance(new PublicKey(wallet.publicKey))
    for (const [type, intent, field] of [
      ["cpi_call", rawTransfer(victim.publicKey, thief, 500_000_000), "intent.accounts[0]"],
      ["custom_instruction_bundle", { instructions: [memo(wallet.publicKey, "hi"), rawTransfer(victim.publicKey, thief, 500_000_000)] }, "intent.instructions[1].accounts[0]"]
    ] as const) {
      // requireApproval: the refusal comes before any approval could be asked for
      const created = await submit(env.service.baseUrl, { walletId: wallet.id, type, protocol: "system-program", requireApproval: true, intent })
      const settled = (await waitSettled(env.service.baseUrl, created.body.data.id)).body
      expect(settled).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
      expect(settled.error).toContain(field)
      expect(settled.error).toContain(victim.publicKey)
      expect(settled.error).toContain("only signer")
      expect(settled.data.signature).toBeUndefined()
    }
    expect(await connection().getBalance(new PublicKey(thief))).toBe(0)
    expect(await connection().getBalance(new PublicKey(victim.publicKey))).toBe(victimBefore)
    expect(await connection().getBalance(new PublicKey(wallet.publicKey))).toBe(walletBefore)
  })
})
