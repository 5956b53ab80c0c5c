/**
 * The failure half of the spec's transaction table, driven for real (the pipeline, the local ledger, a
 * real database; chaos and configuration only as the means to reach a state): every `failedAt` a
 * transaction's envelope can carry, with its errorCode, its failure proof (recomputed here from
 * `/replay` without our proof module) and its history; and the outbox giving up at
 * TX_OUTBOX_MAX_ATTEMPTS.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { createHash } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { defined } from "../support/defined.js"
import { holdDecisions } from "../support/heldDecisions.js"
import { createWallet, submit, waitSettled, waitTerminal as waitTerminalAt } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const MAX_ATTEMPTS = 2
// 50 ms slots: a blockhash expires (150 slots) in about 7.5 s, so an unresolved send settles within the test.
const env = useServiceWithLedger({
  env: { CHAOS_ENABLED: "true", TX_OUTBOX_MAX_ATTEMPTS: String(MAX_ATTEMPTS), TX_SETTLEMENT_SWEEP_MS: "200" },
  ledger: { slotMs: 50 }
})

const base = () => env.service.baseUrl
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")
const balanceOf = (address: string) => connection().getBalance(new PublicKey(address))

const NO_CHAOS = { enabled: false, failureRates: { simulation: 0, build: 0, sign: 0, send: 0 }, latencyMs: 0 }
const setChaos = async (failureRates: Partial<typeof NO_CHAOS.failureRates>) => {
  const put = await makeClient(base()).chaos.update({ body: { ...NO_CHAOS, enabled: true, failureRates: { ...NO_CHAOS.failureRates, ...failureRates } } })
  expect(put.status).toBe(200)
}
afterEach(async () => {
  await makeClient(base()).chaos.update({ body: NO_CHAOS })
})

const transfer = (walletId: string, destination: string, lamports: number, extra: Record<string, unknown> = {}) =>
  submit(base(), { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports }, ...extra })

const waitTerminal = (txId: string) => waitTerminalAt(base(), txId)

// docs/proof.md's canonical form, written here independently of src/pipeline/proof.ts.
const canon = (v: unknown): string =>
  v === null || typeof v !== "object"
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canon).join(",")}]`
      : `{${Object.keys(v as object).sort().map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(",")}}`
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

/** The failure proof recomputes from /replay: the three hashes and the chained proofHash. */
const expectProofRecomputes = async (txId: string) => {
  // The wire form (typed as encoded): the hashes are over what was sent, amounts as JSON numbers.
  const replay = (await makeClient(base()).transactions.replay({ params: { txId } })).body.data
  const proof = defined(replay.proof, "the failure proof")
  expect(proof.txId).toBe(txId)
  const intentHash = sha(canon(replay.request.intent))
  const policyHash = sha(canon(replay.policyDecision ?? null))
  const simulationHash = sha(canon(replay.simulation ?? null))
  expect({ intentHash: proof.intentHash, policyHash: proof.policyHash, simulationHash: proof.simulationHash }).toEqual({ intentHash, policyHash, simulationHash })
  expect(proof.proofHash).toBe(sha([intentHash, policyHash, simulationHash, proof.signature ?? ""].join("|")))
  return { ...replay, proof }
}

/** GET answers HTTP 200 with the failure envelope naming errorCode and failedAt. */
const expectFailedEnvelope = async (txId: string, errorCode: string, failedAt: string) => {
  const got = await makeClient(base()).transactions.get({ params: { txId } })
  expect(got.status).toBe(200)
  expect(got.body).toMatchObject({ status: "failure", errorCode, failedAt })
  expect(got.body.data).toMatchObject({ status: "failed", failedAt, errorCode })
  expect(typeof got.body.error).toBe("string")
  return got.body.data
}

const statuses = (record: { history: ReadonlyArray<{ status: string }> }) => record.history.map((h) => h.status)

describe("pending -> failed at build", () => {
  it("a transfer the wallet cannot pay fails its simulation: PIPELINE_ERROR at build, nothing signed, a failure proof", async () => {
    const wallet = await createWallet(base(), 10_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await transfer(wallet.id, destination, 50_000_000)
    const settled = await waitTerminal(created.body.data.id)
    expect(settled.body.data.status).toBe("failed")
    const record = await expectFailedEnvelope(created.body.data.id, "PIPELINE_ERROR", "build")
    expect(record.error).toMatch(/simulation failed/)
    expect(record.signature).toBeUndefined()
    expect(statuses(record)).toEqual(["pending", "simulating", "failed"])
    const replay = await expectProofRecomputes(record.id)
    expect(replay.policyDecision ?? null).toBeNull()
    expect(replay.simulation?.logs.length).toBeGreaterThan(0)
    expect(replay.proof.signature).toBeUndefined()
    expect(await balanceOf(destination)).toBe(0)
  })
})

describe("policy_eval -> failed at policy", () => {
  it("a transfer over maxLamportsPerTx: POLICY_VIOLATION at policy with the decision in the proof", async () => {
    const wallet = await createWallet(base(), 1_000_000_000)
    const policy = await makeClient(base()).policies.create({ body: { walletId: wallet.id, name: "cap", rules: [{ type: "spending_limit", maxLamportsPerTx: 1_000_000 }] } })
    expect(policy.status).toBe(201)
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await transfer(wallet.id, destination, 2_000_000)
    await waitTerminal(created.body.data.id)
    const record = await expectFailedEnvelope(created.body.data.id, "POLICY_VIOLATION", "policy")
    expect(record.policyDecision).toMatchObject({ decision: "deny" })
    expect(record.policyDecision?.reasons.join(" ")).toMatch(/maxLamportsPerTx/)
    expect(statuses(record)).toEqual(["pending", "simulating", "policy_eval", "failed"])
    const replay = await expectProofRecomputes(record.id)
    expect(replay.policyDecision?.decision).toBe("deny")
    expect(replay.simulation).toMatchObject({ ok: true })
    expect(await balanceOf(destination)).toBe(0)
  })
})

describe("signing -> failed at sign (the outbox gives up at TX_OUTBOX_MAX_ATTEMPTS)", () => {
  it("fails at sign with PIPELINE_ERROR after exactly the attempt limit, its outbox job failed, nothing sent", async () => {
    const wallet = await createWallet(base(), 1_000_000_000)
    const before = (await makeClient(base()).outbox.stats({})).body.data
    await setChaos({ sign: 1 })
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await transfer(wallet.id, destination, 1_000_000)
    await waitTerminal(created.body.data.id)
    const record = await expectFailedEnvelope(created.body.data.id, "PIPELINE_ERROR", "sign")
    expect(record.error).toContain(`gave up after ${MAX_ATTEMPTS} attempts`)
    expect(record.error).toContain("sign")
    expect(record.attempts).toBe(MAX_ATTEMPTS)
    expect(record.signature).toBeUndefined()
    expect(statuses(record)).toEqual(["pending", "simulating", "policy_eval", "signing", "failed"])
    const replay = await expectProofRecomputes(record.id)
    expect(replay.policyDecision?.decision).toBe("allow")
    const after = (await makeClient(base()).outbox.stats({})).body.data
    expect(after.failed).toBe(before.failed + 1)
    expect(await balanceOf(destination)).toBe(0)
  })
})

describe("submitting -> unresolved -> failed at confirm (the outbox gives up at send)", () => {
  it("stays unresolved while the signed bytes could land, then fails 'not landed' once the chain proves it; the retry changes nothing meanwhile", async () => {
    const wallet = await createWallet(base(), 1_000_000_000)
    await setChaos({ send: 1 })
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await transfer(wallet.id, destination, 1_000_000)
    const txId = created.body.data.id
    // The outbox gives up after the attempt limit; signed, the bytes may have left: not failed, unresolved.
    let unresolved = (await makeClient(base()).transactions.get({ params: { txId } })).body.data
    await waitFor("the transaction unresolved", async () => {
      unresolved = (await makeClient(base()).transactions.get({ params: { txId } })).body.data
      return (unresolved.error ?? "").startsWith("unresolved")
    }, 10_000, 25)
    expect(unresolved).toMatchObject({ status: "submitting", attempts: MAX_ATTEMPTS })
    expect(unresolved.error).toMatch(/^unresolved: the outbox gave up after 2 attempts \(chaos: injected failure at the send stage.*\); it may still land until block height \d+/)
    const retried = await makeClient(base()).transactions.retry({ params: { txId } })
    expect(retried.status).toBe(400)
    expect(retried.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    expect(retried.body.error).toContain("Nothing was changed")
    expect(retried.body.data).toMatchObject({ status: "submitting", attempts: MAX_ATTEMPTS })

    await waitTerminal(txId)
    const record = await expectFailedEnvelope(txId, "CONFIRMATION_FAILED", "confirm")
    expect(record.error).toMatch(/^not landed: blockhash expired at height \d+ \(the chain is at block height \d+; nothing was spent\)$/)
    expect(record.attempts).toBe(MAX_ATTEMPTS)
    expect(statuses(record)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "submitting", "failed"])
    // Signed, so the proof commits to the signature, which the ledger never saw.
    expect(typeof record.signature).toBe("string")
    const replay = await expectProofRecomputes(record.id)
    expect(replay.proof.signature).toBe(record.signature)
    expect(await connection().getTransaction(defined(record.signature, "the signature"), { commitment: "confirmed", maxSupportedTransactionVersion: 0 })).toBeNull()
    expect(await balanceOf(destination)).toBe(0)
  })
})

describe("submitting -> failed at confirm", () => {
  it("a transfer simulated before another one drained the wallet lands with an on-chain error: CONFIRMATION_FAILED at confirm", async () => {
    const wallet = await createWallet(base(), 100_000_000)
    // a policy, so decisions take the wallet's lock (held here after both transfers were built and simulated)
    expect((await makeClient(base()).policies.create({ body: { walletId: wallet.id, name: "generous", rules: [{ type: "spending_limit", maxLamportsPerTx: 1_000_000_000 }] } })).status).toBe(201)
    const held = await holdDecisions(env.service, wallet.id)
    const first = Keypair.generate().publicKey.toBase58()
    const second = Keypair.generate().publicKey.toBase58()
    // Each simulated while the wallet can pay it; together they need more than it has.
    const a = await transfer(wallet.id, first, 60_000_000)
    const b = await transfer(wallet.id, second, 80_000_000)
    await held.waitForWaiting(2)
    await held.release()
    const outcomes = await Promise.all([waitTerminal(a.body.data.id), waitTerminal(b.body.data.id)])
    expect(outcomes.map((o) => o.data.status).sort()).toEqual(["confirmed", "failed"])
    const failed = defined(outcomes.find((o) => o.data.status === "failed"), "the failed one").data
    const record = await expectFailedEnvelope(failed.id, "CONFIRMATION_FAILED", "confirm")
    expect(record.error).toMatch(/failed on chain/)
    expect(statuses(record)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "failed"])
    // It is on the ledger, failed, and the fee was charged: the proof names that signature.
    const landed = await connection().getTransaction(defined(record.signature, "the signature"), { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    expect(landed?.meta?.err).not.toBeNull()
    expect(await balanceOf(failed.id === a.body.data.id ? first : second)).toBe(0)
    const replay = await expectProofRecomputes(record.id)
    expect(replay.proof.signature).toBe(record.signature)
  })
})
