/**
 * Approvals that outlive blockhashes (issue 31 items 3 and 4) on the local ledger with short slots (40 ms, so
 * 150 slots pass in seconds): every approval carries a human-readable preview and its hash; an approve with
 * another preview's hash answers 409 and changes nothing; a transaction approved after its blockhash expired
 * (more than 150 slots) is built again and confirms with exactly the approved effect; one whose effect changed
 * while it waited goes back to the gate with the new preview and signs only after a new approval; a policy
 * tightened while it waited refuses it at signing.
 */
import { SqlClient } from "@effect/sql"
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { viewMessage } from "../../src/protocols/messageView.js"
import { canonicalJson, sha256Hex } from "../../src/pipeline/proof.js"
import { makeClient } from "../support/client.js"
import { defined } from "../support/defined.js"
import { useServiceWithLedger } from "../support/harness.js"
import { createWallet, submit, waitSettled, waitTerminal } from "../support/transactions.js"
import { sleep } from "../support/wait.js"

const env = useServiceWithLedger({ ledger: { slotMs: 40 } })
const client = () => makeClient(env.service.baseUrl)
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")
const SOL = 1_000_000_000

const gated = async (walletId: string, type: string, protocol: string, intent: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, { walletId, type, protocol, requireApproval: true, intent }, undefined, "?waitMs=20000")
  expect(created.status, JSON.stringify(created.body)).toBe(202)
  return defined(created.data, "the gated transaction")
}

const recorded = (txId: string) =>
  env.service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ message_base64: string; last_valid_block_height: string }>`
    SELECT message_base64, last_valid_block_height FROM transactions WHERE id = ${txId}`)).then((rows) => defined(rows[0], "the row"))

/** Waits until the ledger is past the last block height at which `txId`'s recorded message could land. */
const outliveBlockhash = async (txId: string) => {
  const { last_valid_block_height: last } = await recorded(txId)
  for (let i = 0; i < 400 && (await connection().getBlockHeight("confirmed")) <= Number(last) + 1; i++) await sleep(50)
  expect(await connection().getBlockHeight("confirmed")).toBeGreaterThan(Number(last))
}

describe("the approval preview", () => {
  it("says in words what the transfer does, with amounts, counterparty, balance change, fee, risk tier and reasons; its hash is of exactly that", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const tx = await gated(wallet.id, "transfer_sol", "system-program", { destination, lamports: 1_000_000 })
    const approval = defined(tx.approval, "approval")
    const preview = defined(approval.preview, "preview")
    expect(approval).toMatchObject({ status: "pending", approvalsRequired: 1, approvals: [], round: 1 })
    expect(approval.previewHash).toBe(sha256Hex(canonicalJson(preview)))
    expect(preview.summary).toBe(`Transfer 0.001 SOL from this wallet to ${destination}; the wallet pays out ${preview.balanceChanges[0]?.display.slice(1)} in all`)
    const transfer = defined(preview.instructions.find((ix) => ix.program === "System Program"), "the transfer")
    expect(transfer).toMatchObject({ action: "transfer", amounts: [{ symbol: "SOL", amount: "0.001", baseUnits: "1000000" }], counterparties: [destination] })
    expect(preview.counterparties).toEqual([destination])
    const fee = BigInt(preview.fee.amount.baseUnits)
    expect(fee).toBeGreaterThanOrEqual(5000n)
    expect(preview.fee.paidBy).toBe("wallet")
    expect(preview.balanceChanges).toEqual([expect.objectContaining({ symbol: "SOL", mint: null, baseUnits: (-(1_000_000n + fee)).toString() })])
    expect(preview).toMatchObject({ riskTier: "low", reasons: ["approval was requested for this transaction"], simulation: { ok: true }, type: "transfer_sol", wallet: wallet.publicKey })
  })

  it("answers 409 to an approve with the hash of another preview, and changes nothing; the shown hash approves", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const tx = await gated(wallet.id, "transfer_sol", "system-program", { destination, lamports: 2_000_000 })
    const stale = await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: "0".repeat(64) } })
    expect(stale.status).toBe(409)
    expect(stale.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(stale.body.error).toMatch(/^previewHash: the preview of transaction .* changed since it was shown/)
    const malformed = await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: "not-a-hash" } })
    expect(malformed.status).toBe(400)
    expect(malformed.body.error).toMatch(/^previewHash/)
    const unknownField = await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: tx.approval?.previewHash, note: "x" } as never })
    expect(unknownField.status).toBe(400)
    const still = defined((await client().transactions.get({ params: { txId: tx.id } })).data, "record")
    expect(still).toMatchObject({ status: "approval_gate", approval: { status: "pending", approvals: [] } })
    const approved = await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: defined(tx.approval?.previewHash, "hash") } })
    expect(approved.status).toBe(200)
    expect((await waitSettled(env.service.baseUrl, tx.id)).data.status).toBe("confirmed")
    expect(await connection().getBalance(new PublicKey(destination))).toBe(2_000_000)
  })
})

describe("approvals outlive blockhashes", () => {
  it("a transfer approved more than 150 slots after its build is built again and confirms with exactly the approved effect", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const tx = await gated(wallet.id, "transfer_sol", "system-program", { destination, lamports: 3_000_000 })
    const approvedPreview = defined(tx.approval?.preview, "preview")
    const atGate = await recorded(tx.id)
    await outliveBlockhash(tx.id)
    const before = BigInt(await connection().getBalance(new PublicKey(wallet.publicKey)))

    const approved = await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: defined(tx.approval?.previewHash, "hash") } })
    expect(approved.status).toBe(200)
    const settled = (await waitSettled(env.service.baseUrl, tx.id)).data
    expect(settled.status, settled.error).toBe("confirmed")
    expect(settled.history.map((h) => h.status)).toEqual(["pending", "simulating", "policy_eval", "approval_gate", "signing", "signing", "submitting", "confirmed"])
    expect(settled.history[5]?.message).toContain("built again after approval")

    // a fresh blockhash: the bytes signed are not the ones built before the gate (those could no longer land)
    const signed = await recorded(tx.id)
    expect(viewMessage(Buffer.from(signed.message_base64, "base64")).blockhash).not.toBe(viewMessage(Buffer.from(atGate.message_base64, "base64")).blockhash)
    // exactly the approved effect: the destination got the amount, the wallet paid what the preview said (within the fee's movement)
    expect(await connection().getBalance(new PublicKey(destination))).toBe(3_000_000)
    const after = BigInt(await connection().getBalance(new PublicKey(wallet.publicKey)))
    const approvedChange = BigInt(defined(approvedPreview.balanceChanges[0], "SOL change").baseUnits)
    const landed = await connection().getTransaction(defined(settled.signature, "signature"), { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    expect(after - before).toBe(-(3_000_000n + BigInt(landed?.meta?.fee ?? 0)))
    expect(after - before - approvedChange <= 10_000n && approvedChange - (after - before) <= 10_000n).toBe(true)
  })

  it("one whose effect changed while it waited does not sign: back at the gate with the new preview, visibly; signed after a new approval", async () => {
    const issuer = await createWallet(env.service.baseUrl, 2 * SOL)
    const receiver = await createWallet(env.service.baseUrl)
    const mintTx = await submit(env.service.baseUrl, { walletId: issuer.id, type: "create_mint", protocol: "spl-token", intent: { decimals: 6 } }, undefined, "?waitMs=20000")
    const mint = String(defined(mintTx.data?.result, "mint result").mint)
    expect((await submit(env.service.baseUrl, { walletId: issuer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "5000000" } }, undefined, "?waitMs=20000")).data?.status).toBe("confirmed")

    // the receiver has no token account yet: the approved transfer creates it, the wallet paying its rent
    const tx = await gated(issuer.id, "transfer_spl", "spl-token", { destination: receiver.publicKey, mint, amount: "1000000" })
    const first = defined(tx.approval?.preview, "preview")
    expect(first.instructions.map((ix) => ix.program)).toContain("Associated Token Account")
    expect(first.balanceChanges.find((change) => change.mint === mint)).toMatchObject({ amount: "-1", baseUnits: "-1000000" })

    // meanwhile someone else creates it (the issuer mints to the receiver, in a transaction of its own)
    expect((await submit(env.service.baseUrl, { walletId: issuer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "1", destination: receiver.publicKey } }, undefined, "?waitMs=20000")).data?.status).toBe("confirmed")
    const receiverAta = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(receiver.publicKey))

    const approved = await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: defined(tx.approval?.previewHash, "hash") } })
    expect(approved.status).toBe(200)
    const back = (await waitSettled(env.service.baseUrl, tx.id)).data
    expect(back.status).toBe("approval_gate")
    expect(back.signature).toBeUndefined()
    expect((await getAccount(connection(), receiverAta)).amount).toBe(1n)
    const second = defined(back.approval, "the new approval")
    expect(second).toMatchObject({ status: "pending", round: 2, approvals: [] })
    expect(second.changedSinceApproval).toMatch(/^since approval, its instructions or counterparties differ/)
    expect(second.previewHash).not.toBe(tx.approval?.previewHash)
    expect(defined(second.preview, "new preview").instructions.map((ix) => ix.program)).not.toContain("Associated Token Account")
    expect(back.history.at(-1)).toMatchObject({ status: "approval_gate", message: expect.stringContaining("it needs a new approval") })

    // the first approval's hash no longer approves anything; the new one does
    expect((await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: defined(tx.approval?.previewHash, "hash") } })).status).toBe(409)
    expect((await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: defined(second.previewHash, "new hash") } })).status).toBe(200)
    const done = await waitTerminal(env.service.baseUrl, tx.id)
    expect(done.data.status, done.data.error).toBe("confirmed")
    expect((await getAccount(connection(), receiverAta)).amount).toBe(1_000_001n)
  })

  it("a create_mint built again gets a new mint key, and still does what was approved: it confirms without a new approval", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    const tx = await gated(wallet.id, "create_mint", "spl-token", { decimals: 6 })
    const approved = defined(tx.approval?.preview, "preview")
    expect(approved.newAccounts).toHaveLength(1)
    expect((await client().transactions.approve({ params: { txId: tx.id }, body: { previewHash: defined(tx.approval?.previewHash, "hash") } })).status).toBe(200)
    const done = await waitTerminal(env.service.baseUrl, tx.id)
    expect(done.data.status, done.data.error).toBe("confirmed")
    const mint = String(defined(done.data.result, "result").mint)
    expect(mint).not.toBe(approved.newAccounts[0])
    expect(await connection().getAccountInfo(new PublicKey(mint))).not.toBeNull()
  })

  it("a policy tightened while it waited applies at signing: refused, nothing sent, its reserved spend given back", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const tx = await gated(wallet.id, "transfer_sol", "system-program", { destination, lamports: 4_000_000 })
    const blocked = await client().policies.create({ body: { walletId: wallet.id, name: "stop that one", rules: [{ type: "address_blocklist", addresses: [destination] }] } })
    expect(blocked.status).toBe(201)
    expect((await client().transactions.approve({ params: { txId: tx.id } })).status).toBe(200)
    const failed = await waitTerminal(env.service.baseUrl, tx.id)
    expect(failed.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(failed.data.error).toMatch(/^policy denied at signing, after approval: .*blocklist/)
    expect(failed.data.signature).toBeUndefined()
    expect(await connection().getBalance(new PublicKey(destination))).toBe(0)
  })
})
