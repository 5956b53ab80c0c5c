/**
 * Quorum approvals (issue 31 item 5) through the real service, ledger and database: a wallet may require N
 * distinct operator approvals; each is recorded with who and when; the same operator counts once (approving
 * again answers the transaction as it stands and changes nothing, so a request whose answer was lost may be sent
 * again); the Nth releases signing; a reject by any one ends it. Raising the quorum is any
 * operator's act, lowering it needs the deployment's key; bad input is refused naming the field.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { parseApiKeys } from "../../src/gateway/apiKeys.js"
import { makeClient } from "../support/client.js"
import { defined } from "../support/defined.js"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY, api } from "../support/service.js"
import { createWallet, submit, waitSettled, waitTerminal } from "../support/transactions.js"

/** Who an approval names: the operator key's id (never the key), as the gateway derives it. */
const idOf = (key: string) => defined(parseApiKeys(`${key}:*:all`)[0], "the key").keyId
const [alice, bob] = [idOf("op-alice"), idOf("op-bob")]
const ALICE = { "x-api-key": "op-alice" }
const BOB = { "x-api-key": "op-bob" }
const TENANT_OPERATOR = { "x-api-key": "op-tenant" }
const env = useServiceWithLedger({ env: { API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;op-alice:*:all;op-bob:*:all;op-tenant:default:all` } })
const as = (headers: Record<string, string>) => makeClient(env.service.baseUrl, headers)
const balance = (address: string) => new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(address))

const gatedTransfer = async (walletId: string, lamports: number) => {
  const destination = Keypair.generate().publicKey.toBase58()
  const created = await submit(env.service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports } }, undefined, "?waitMs=20000")
  expect(created.status).toBe(202)
  return { tx: defined(created.data, "the transaction"), destination }
}

const walletWithQuorum = async (approvalsRequired: number) => {
  const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
  const set = await as(ALICE).approvals.putQuorum({ params: { walletId: wallet.id }, body: { approvalsRequired } })
  expect(set.status).toBe(200)
  expect(set.data).toMatchObject({ walletId: wallet.id, approvalsRequired, updatedBy: alice })
  return wallet
}

describe("a quorum of two", () => {
  it("records each approval with who and when, counts the same operator once, and signs at the second operator's", async () => {
    const wallet = await walletWithQuorum(2)
    const { tx, destination } = await gatedTransfer(wallet.id, 1_500_000)
    expect(tx.approval).toMatchObject({ status: "pending", approvalsRequired: 2, approvals: [] })
    const hash = defined(tx.approval?.previewHash, "previewHash")

    const first = await as(ALICE).transactions.approve({ params: { txId: tx.id }, body: { previewHash: hash } })
    expect(first.status).toBe(200)
    expect(first.data).toMatchObject({ status: "approval_gate", approval: { status: "pending", approvals: [{ by: alice, previewHash: hash }] } })
    expect(Date.parse(defined(first.data?.approval?.approvals?.[0], "entry").at)).toBeGreaterThan(Date.now() - 60_000)
    expect(first.data?.history.at(-1)?.message).toBe(`approval 1 of 2 by ${alice}`)

    const again = await as(ALICE).transactions.approve({ params: { txId: tx.id }, body: { previewHash: hash } })
    expect(again.status).toBe(200)
    expect(again.data).toMatchObject({ status: "approval_gate", approval: { status: "pending", approvals: [{ by: alice }] } })
    expect(again.data?.approval?.approvals).toHaveLength(1)
    expect(again.data?.history.at(-1)?.message).toBe(`approval 1 of 2 by ${alice}`)
    const unchanged = defined((await as(ADMIN_KEY_HEADERS).transactions.get({ params: { txId: tx.id } })).data, "record")
    expect(unchanged.approval?.approvals?.map((a) => a.by)).toEqual([alice])
    expect(await balance(destination)).toBe(0)

    const second = await as(BOB).transactions.approve({ params: { txId: tx.id }, body: { previewHash: hash } })
    expect(second.status).toBe(200)
    const done = (await waitTerminal(env.service.baseUrl, tx.id)).data
    expect(done.status, done.error).toBe("confirmed")
    expect(done.approval).toMatchObject({ status: "approved", decidedBy: bob, approvals: [{ by: alice }, { by: bob }] })
    expect(await balance(destination)).toBe(1_500_000)
    const approvedEvents = (await as(ADMIN_KEY_HEADERS).audit.list({ query: { txId: tx.id } })).data?.events.filter((e) => e.eventType.startsWith("transaction.approv")) ?? []
    expect(approvedEvents.map((e) => [e.eventType, e.metadata.by]).sort()).toEqual([["transaction.approval_recorded", alice], ["transaction.approved", bob]])

    // Released, and settled since: either operator's approve again answers it as it is, and nothing is signed twice.
    for (const operator of [ALICE, BOB]) {
      const repeated = await as(operator).transactions.approve({ params: { txId: tx.id }, body: { previewHash: hash } })
      expect(repeated.status).toBe(200)
      expect(repeated.data).toMatchObject({ status: "confirmed", signature: done.signature, approval: { status: "approved", decidedBy: bob } })
    }
    expect(await balance(destination)).toBe(1_500_000)
    const eventsAfter = (await as(ADMIN_KEY_HEADERS).audit.list({ query: { txId: tx.id } })).data?.events.filter((e) => e.eventType.startsWith("transaction.approv")) ?? []
    expect(eventsAfter).toHaveLength(2)
    // Another round's preview is not what they approved.
    expect((await as(ALICE).transactions.approve({ params: { txId: tx.id }, body: { previewHash: "0".repeat(64) } })).status).toBe(400)
  })

  it("ends at a reject by any one of them, after an approval too: nothing signed", async () => {
    const wallet = await walletWithQuorum(2)
    const { tx, destination } = await gatedTransfer(wallet.id, 1_000_000)
    expect((await as(ALICE).transactions.approve({ params: { txId: tx.id } })).status).toBe(200)
    const rejected = await as(BOB).transactions.reject({ params: { txId: tx.id }, body: { reason: "not this one" } })
    expect(rejected.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(rejected.data?.approval).toMatchObject({ status: "rejected", decidedBy: bob, reason: "not this one", approvals: [{ by: alice }] })
    expect((await as(BOB).transactions.approve({ params: { txId: tx.id } })).status).toBe(400)
    expect((await as(ALICE).transactions.approve({ params: { txId: tx.id } })).status).toBe(400)
    // Who rejected it, rejecting again, is answered the failed transaction; another operator is told it no longer waits.
    const rejectedAgain = await as(BOB).transactions.reject({ params: { txId: tx.id }, body: { reason: "still not" } })
    expect(rejectedAgain.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(rejectedAgain.data?.approval).toMatchObject({ status: "rejected", decidedBy: bob, reason: "not this one" })
    expect((await as(ALICE).transactions.reject({ params: { txId: tx.id }, body: {} })).status).toBe(400)
    expect((await waitSettled(env.service.baseUrl, tx.id)).data.signature).toBeUndefined()
    expect(await balance(destination)).toBe(0)
  })

  it("a quorum raised while a transaction waits applies to it", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const { tx } = await gatedTransfer(wallet.id, 1_000_000)
    expect(tx.approval?.approvalsRequired).toBe(1)
    expect((await as(BOB).approvals.putQuorum({ params: { walletId: wallet.id }, body: { approvalsRequired: 2 } })).status).toBe(200)
    const first = await as(ALICE).transactions.approve({ params: { txId: tx.id } })
    expect(first.data).toMatchObject({ status: "approval_gate", approval: { approvalsRequired: 2, approvals: [{ by: alice }] } })
    expect((await as(BOB).transactions.approve({ params: { txId: tx.id } })).status).toBe(200)
    expect((await waitTerminal(env.service.baseUrl, tx.id)).data.status).toBe("confirmed")
  })
})

const ADMIN_KEY_HEADERS = { "x-api-key": ADMIN_KEY }

describe("a policy that requires two approvals", () => {
  it("asks every transaction it gates for two distinct operators while it is active; its versions keep the figure", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const created = await as(ALICE).policies.create({ body: { walletId: wallet.id, name: "four eyes", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 0 }], approvalsRequired: 2 } })
    expect(created.status).toBe(201)
    expect(created.data?.approvalsRequired).toBe(2)
    const { tx, destination } = await gatedTransfer(wallet.id, 1_200_000)
    expect(tx.approval).toMatchObject({ approvalsRequired: 2, approvals: [] })
    expect((await as(ALICE).transactions.approve({ params: { txId: tx.id } })).data?.status).toBe("approval_gate")
    expect((await as(BOB).transactions.approve({ params: { txId: tx.id } })).status).toBe(200)
    expect((await waitTerminal(env.service.baseUrl, tx.id)).data.status).toBe("confirmed")
    expect(await balance(destination)).toBe(1_200_000)

    // cleared in a new version: one approval again; the first version still says 2
    const policyId = defined(created.data, "policy").id
    const cleared = await as(ALICE).policies.update({ params: { policyId }, body: { approvalsRequired: null } })
    expect(cleared.data?.approvalsRequired).toBeUndefined()
    expect((await as(ALICE).policies.version({ params: { policyId, version: "1" } })).data?.approvalsRequired).toBe(2)
    const next = await gatedTransfer(wallet.id, 1_000_000)
    expect(next.tx.approval?.approvalsRequired).toBe(1)
  })

  it("refuses a bad approvalsRequired with a 400 naming it, and creates nothing", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000)
    for (const approvalsRequired of [0, 11, 2.5, "2"]) {
      const refused = await api(env.service.baseUrl, "POST", "/api/v1/policies", { walletId: wallet.id, name: "bad", rules: [], approvalsRequired })
      expect(refused.status, String(approvalsRequired)).toBe(400)
      expect(refused.body.error).toMatch(/^approvalsRequired: /)
    }
    expect((await as(ALICE).policies.listByWallet({ params: { walletId: wallet.id } })).data?.policies).toEqual([])
  })
})

describe("the wallet's quorum setting", () => {
  it("is 1 unless set; a tenant's operator may raise it but only the deployment's key lowers it", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000)
    expect((await as(TENANT_OPERATOR).approvals.getQuorum({ params: { walletId: wallet.id } })).data).toEqual({ walletId: wallet.id, approvalsRequired: 1, updatedAt: null, updatedBy: null })
    expect((await as(TENANT_OPERATOR).approvals.putQuorum({ params: { walletId: wallet.id }, body: { approvalsRequired: 3 } })).status).toBe(200)
    const lower = await as(TENANT_OPERATOR).approvals.putQuorum({ params: { walletId: wallet.id }, body: { approvalsRequired: 1 } })
    expect(lower.status).toBe(403)
    expect(lower.body.error).toMatch(/^approvalsRequired: lowering wallet .* from 3 to 1 needs the deployment's operator key/)
    expect((await as(TENANT_OPERATOR).approvals.getQuorum({ params: { walletId: wallet.id } })).data?.approvalsRequired).toBe(3)
    expect((await as(ADMIN_KEY_HEADERS).approvals.putQuorum({ params: { walletId: wallet.id }, body: { approvalsRequired: 1 } })).data?.approvalsRequired).toBe(1)
  })

  it("refuses bad input with a 400 naming the field and changes nothing; an unknown wallet is a 404", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000)
    for (const [body, field] of [
      [{ approvalsRequired: 0 }, "approvalsRequired"], [{ approvalsRequired: 11 }, "approvalsRequired"], [{ approvalsRequired: 1.5 }, "approvalsRequired"],
      [{ approvalsRequired: "2" }, "approvalsRequired"], [{}, "approvalsRequired"], [{ approvalsRequired: 2, quorum: 2 }, "quorum"]
    ] as const) {
      const refused = await api(env.service.baseUrl, "PUT", `/api/v1/wallets/${wallet.id}/approval-quorum`, body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
      expect(refused.body.error, JSON.stringify(body)).toContain(field)
    }
    expect((await as(ADMIN_KEY_HEADERS).approvals.getQuorum({ params: { walletId: wallet.id } })).data?.approvalsRequired).toBe(1)
    const missing = await as(ADMIN_KEY_HEADERS).approvals.putQuorum({ params: { walletId: "00000000-0000-4000-8000-000000000000" }, body: { approvalsRequired: 2 } })
    expect(missing.status).toBe(404)
  })
})
