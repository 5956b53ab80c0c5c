/**
 * Never pay twice (issue 30), one named test per scenario, through the real service, database and
 * local ledger, with a fault-injecting JSON-RPC proxy (test/support/faultProxy.ts) between the service
 * and the ledger. Every fault here happens after the signed bytes reached the ledger, or while they
 * could still reach it:
 * - lost answer then retry: sendTransaction lands, its answer is lost, then 503 for 8 s; the outbox gives
 *   up; the record is never failed, a retry meanwhile changes nothing, the resolver confirms it: +0.1 SOL once.
 * - give-up then resolver: the bytes never reach the ledger; unresolved until the blockhash expired, then
 *   failed "not landed", the daily spend and the agent budget given back; the retry then pays once.
 * - a record an earlier version failed while its bytes landed: the retry adopts the landed signature.
 * - two retries sent at once: the one that loses the race answers what a later retry would (400, unchanged).
 * - a retry that waited on the record's row lock while another moved it: it answers the record as its lock found
 *   it, even when that other attempt failed again before it could read anything more (played with SQL locks);
 *   one whose move to unresolved lost that way, and then finds the record failed again, retries it (202), its
 *   landed bytes adopted by the resolver.
 * - lagging endpoint: the only endpoint answering statuses is 300 slots behind and says "not found" past
 *   the blockhash's expiry; the transaction is never failed on its word.
 */
import { SqlClient } from "@effect/sql"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reconcileBudgets } from "../../actors/budgetReconciler.js"
import { makeClient } from "../support/client.js"
import { startFaultProxy, type FaultProxy } from "../support/faultProxy.js"
import { startTestLedger } from "../support/ledger.js"
import { ADMIN_KEY, type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitTerminal } from "../support/transactions.js"
import { raceOnTheRow } from "../support/rowRace.js"
import { sleep, waitFor } from "../support/wait.js"
import { WebSocket } from "ws"

const SOL = 1_000_000_000
// 50 ms slots: a blockhash expires (150 slots) in about 7.5 s.
const SLOT_MS = 50
const SERVICE_ENV = {
  TX_OUTBOX_MAX_ATTEMPTS: "3",
  CHAIN_RPC_MAX_RETRIES: "1",
  CHAIN_RPC_RETRY_DELAY_MS: "100",
  CHAIN_RPC_TIMEOUT_MS: "1000",
  TX_SETTLEMENT_SWEEP_MS: "200"
}

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let proxy: FaultProxy
let service: RunningService

beforeAll(async () => {
  ledger = await startTestLedger({ slotMs: SLOT_MS })
  proxy = await startFaultProxy(ledger.rpcUrl)
  service = await startService({ rpcUrl: proxy.url, env: SERVICE_ENV })
})

afterAll(async () => {
  await service?.stop()
  await proxy?.close()
  await ledger?.close()
})

const client = () => makeClient(service.baseUrl)
const balance = (address: string) => new Connection(ledger.rpcUrl, "confirmed").getBalance(new PublicKey(address))
const landedSignature = async (signature: string) =>
  (await new Connection(ledger.rpcUrl, "confirmed").getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0]

/** The wallet's daily spend as the policy engine counts it (what maxLamportsPerDay is checked against). */
const countedDailySpend = (walletId: string) =>
  service.runtime.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ spent: string }>`
      SELECT spent_lamports::text AS spent FROM policy_daily_spend WHERE wallet_id = ${walletId} AND utc_day = ${new Date().toISOString().slice(0, 10)}
    `).pipe(Effect.map((rows) => Number(rows[0]?.spent ?? "0")))
  )

const get = async (txId: string) => (await client().transactions.get({ params: { txId } })).body.data

/** Waits until the record is unresolved (submitting with an `unresolved:` error) or settled, and answers it. */
const waitUnresolved = async (txId: string) => {
  let record = await get(txId)
  await waitFor(`${txId} unresolved`, async () => {
    record = await get(txId)
    return (record.status === "submitting" && (record.error ?? "").startsWith("unresolved")) || record.status === "confirmed" || record.status === "failed"
  }, 10_000, 25)
  return record
}

/** An unresolved transaction written as failed, as an earlier version did when the outbox gave up: its rows (none once it moved on). */
const writeFailedAsBefore = (txId: string) =>
  service.runtime.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
      UPDATE transactions SET status = 'failed', stage = 'send', failed_at = 'send', error_code = 'CONFIRMATION_FAILED',
        error = 'gave up after 3 attempts: sendTransaction failed on every RPC endpoint'
      WHERE id = ${txId} AND status = 'submitting' RETURNING id
    `)
  )

/**
 * Another retry racing the one `send` makes (test/support/rowRace.ts): the other's move to pending holds the
 * record's row lock while `send`'s statement `loserStatement` waits on it; once that statement has its answer, and
 * before anything `send` reads next, the record is failed again (that attempt failed too). Answers what `send` answered.
 */
const raceAnotherRetry = <A>(txId: string, loserStatement: string, send: () => Promise<A>): Promise<A> =>
  raceOnTheRow(service.database.url, txId, {
    loserStatement,
    moveAway: "UPDATE transactions SET status = 'pending', stage = 'validation', failed_at = NULL, error_code = NULL, error = NULL WHERE id = $1",
    moveBack:
      "UPDATE transactions SET status = 'failed', stage = 'send', failed_at = 'send', error_code = 'CONFIRMATION_FAILED', error = 'not landed: blockhash expired (played)' WHERE id = $1"
  }, send)

/** The stage stream of a wallet's transactions (WebSocket /api/v1/stream), collecting its stage events. */
const streamOf = async (walletId: string) => {
  const ws = new WebSocket(`${service.baseUrl.replace("http", "ws")}/api/v1/stream?walletId=${walletId}`, { headers: { "x-api-key": ADMIN_KEY } })
  const events: Array<{ txId: string; status: string; message?: string }> = []
  await new Promise<void>((resolve, reject) => {
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as { type: string; txId: string; status: string; message?: string }
      if (message.type === "subscribed") resolve()
      if (message.type === "stage") events.push(message)
    })
    ws.once("error", reject)
  })
  return { events, close: () => ws.terminate() }
}

const transfer = async (walletId: string, lamports: number) => {
  const destination = Keypair.generate().publicKey.toBase58()
  const created = await submit(service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports } })
  expect(created.status).toBe(201)
  return { txId: created.body.data.id, destination }
}

describe("never pay twice", () => {
  it("lost answer then retry: sendTransaction lands, its answer is lost, then 503 for 8 s: never failed, a retry changes nothing, the resolver confirms: +0.1 SOL once", async () => {
    const wallet = await createWallet(service.baseUrl, SOL)
    await client().policies.create({ body: { walletId: wallet.id, name: "daily", rules: [{ type: "spending_limit", maxLamportsPerDay: SOL }] } })
    const stream = await streamOf(wallet.id)
    proxy.add({ methods: ["sendTransaction"], times: 1, action: { kind: "loseAnswer" }, then: [{ action: { kind: "unavailable" }, forMs: 8_000 }] })
    // A client that waits for the outcome (up to 30 s), and the stage stream, see the final one.
    const destination = Keypair.generate().publicKey.toBase58()
    const waiting = submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 0.1 * SOL } }, undefined, "?waitMs=30000")
    await waitFor("the transaction is accepted", () => stream.events.length > 0, 10_000, 20)
    const txId = stream.events[0].txId

    const unresolved = await waitUnresolved(txId)
    expect(unresolved).toMatchObject({ status: "submitting", failedAt: null, errorCode: null })
    // The supervised resolver that settles it is visible to operators.
    const resolver = (await client().runtime.actor({ params: { name: "settlement-resolver" } })).body.data
    expect(resolver).toMatchObject({ name: "settlement-resolver", kind: "settlement-resolver" })
    expect(unresolved.error).toMatch(/^unresolved: the outbox gave up after 3 attempts .*; it may still land until block height \d+/)
    // The bytes are on the ledger already: nothing may be signed again.
    expect(await balance(destination)).toBe(0.1 * SOL)

    // The client retries as the spec tells it to: the answer is the current state, and nothing changes.
    const retried = await client().transactions.retry({ params: { txId } })
    expect(retried.status).toBe(400)
    expect(retried.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", data: { id: txId, status: "submitting" } })
    expect(retried.body.error).toContain("Nothing was changed")
    const after = await get(txId)
    expect({ status: after.status, history: after.history.length, updatedAt: after.updatedAt }).toEqual({
      status: unresolved.status, history: unresolved.history.length, updatedAt: unresolved.updatedAt
    })

    const answered = await waiting
    expect(answered.status).toBe(201)
    expect(answered.body.data).toMatchObject({ id: txId, status: "confirmed" })
    const settled = (await waitTerminal(service.baseUrl, txId)).body
    expect(settled).toMatchObject({ status: "success", data: { status: "confirmed", failedAt: null, errorCode: null, deltaGuard: { ok: true } } })
    await waitFor("the stream sees it confirmed", () => stream.events.some((event) => event.status === "confirmed"), 10_000, 20)
    expect(stream.events.map((event) => event.status)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "submitting", "confirmed"])
    expect(stream.events[5].message).toMatch(/^unresolved: /)
    stream.close()
    expect(settled.data.error).toBeUndefined()
    expect(settled.data.executionProof?.signature).toBe(settled.data.signature)
    expect(await landedSignature(settled.data.signature ?? "")).not.toBeNull()
    expect(settled.data.history.map((entry) => entry.status)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "submitting", "confirmed"])

    // A retry of the confirmed transaction is refused (no 5xx), and the destination was paid once.
    expect((await client().transactions.retry({ params: { txId } })).status).toBe(400)
    expect(await balance(destination)).toBe(0.1 * SOL)
    expect(await countedDailySpend(wallet.id)).toBe(0.1 * SOL)
  }, 60_000)

  it("give-up then resolver: the bytes never reach the ledger; unresolved until the blockhash expired, then failed 'not landed' with the spend and budget given back; the retry pays once", async () => {
    const wallet = await createWallet(service.baseUrl, SOL)
    await client().policies.create({ body: { walletId: wallet.id, name: "daily", rules: [{ type: "spending_limit", maxLamportsPerDay: SOL }] } })
    const agent = (await client().agents.create({ body: { name: "payer", walletId: wallet.id, budgetLamports: SOL } })).body.data
    const spent = async () => (await client().agents.budget({ params: { agentId: agent.id } })).body.data.spentLamportsToday
    const destination = Keypair.generate().publicKey.toBase58()
    // Every sendTransaction is refused with 503 for 3 s: the outbox gives up; the bytes never left.
    proxy.add({ methods: ["sendTransaction"], action: { kind: "unavailable" }, forMs: 3_000 })
    const executed = await client().agents.execute({
      params: { agentId: agent.id }, query: { waitMs: "0" },
      body: { type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 0.2 * SOL } }
    })
    expect(executed.status).toBe(201)
    const txId = executed.body.data.id

    const unresolved = await waitUnresolved(txId)
    expect(unresolved.status).toBe("submitting")
    expect(await spent()).toBe(0.2 * SOL)
    expect(await countedDailySpend(wallet.id)).toBe(0.2 * SOL)

    const failed = (await waitTerminal(service.baseUrl, txId)).body
    expect(failed).toMatchObject({ status: "failure", errorCode: "CONFIRMATION_FAILED", failedAt: "confirm", data: { status: "failed" } })
    expect(failed.error).toMatch(/^not landed: blockhash expired at height (\d+) \(the chain is at block height (\d+); nothing was spent\)$/)
    const [, expiredAt, chainAt] = /height (\d+) \(the chain is at block height (\d+)/.exec(failed.error ?? "") ?? []
    expect(Number(chainAt)).toBeGreaterThan(Number(expiredAt))
    expect(await landedSignature(failed.data.signature ?? "")).toBeNull()
    // The chain said it did not land: the daily spend and the agent's budget are given back.
    expect(await countedDailySpend(wallet.id)).toBe(0)
    expect(await spent()).toBe(0)

    const retried = await client().transactions.retry({ params: { txId } })
    expect(retried.status).toBe(202)
    const confirmed = (await waitTerminal(service.baseUrl, txId)).body.data
    expect(confirmed.status).toBe("confirmed")
    expect(confirmed.signature).not.toBe(failed.data.signature)
    await service.runtime.runPromise(Effect.asVoid(reconcileBudgets))
    expect(await balance(destination)).toBe(0.2 * SOL)
    expect(await countedDailySpend(wallet.id)).toBe(0.2 * SOL)
    expect(await spent()).toBe(0.2 * SOL)
  }, 60_000)

  it("a record an earlier version failed while its bytes landed: the retry asks the chain first and adopts the landed signature (200), paying nothing again", async () => {
    const wallet = await createWallet(service.baseUrl, SOL)
    // What the service wrote before issue 30 at the same point: failed, CONFIRMATION_FAILED, while the bytes landed.
    // Written only over a record still unresolved: the resolver may settle it first (the bytes landed), and then
    // the scenario did not happen here and is made again with another transfer.
    let earlier: { txId: string; destination: string } | undefined
    for (let attempt = 0; attempt < 3 && earlier === undefined; attempt++) {
      proxy.add({ methods: ["sendTransaction"], times: 1, action: { kind: "loseAnswer" }, then: [{ action: { kind: "unavailable" }, forMs: 4_000 }] })
      const sent = await transfer(wallet.id, 0.2 * SOL)
      const unresolved = await waitUnresolved(sent.txId)
      const rewritten = unresolved.status !== "submitting" ? [] : await writeFailedAsBefore(sent.txId)
      proxy.clear()
      if (rewritten.length === 1) earlier = sent
      else expect((await waitTerminal(service.baseUrl, sent.txId)).data.status).toBe("confirmed")
    }
    expect(earlier, "the resolver settled every attempt before it could be rewritten").toBeDefined()
    const { txId, destination } = earlier!
    expect(await balance(destination)).toBe(0.2 * SOL)

    // Two retries at once (a client that sent its retry again, say): the first to move adopts; the other, and the
    // resolver (whose sweep finds the adopted transaction at submitting), find it adopted already. Each answers 200.
    // The chain's statuses answer 300 ms late for a moment, so both retries have read the record failed before
    // either asks the chain (else the second could arrive after the first's adoption and be told it is submitting).
    proxy.add({ methods: ["getSignatureStatuses"], action: { kind: "delay", ms: 300 }, forMs: 1_000 })
    const retries = await Promise.all([1, 2].map(() => client().transactions.retry({ params: { txId } })))
    for (const retried of retries) {
      expect(retried.status, JSON.stringify(retried.body)).toBe(200)
      expect(retried.body).toMatchObject({ status: "success", data: { id: txId, failedAt: null, errorCode: null } })
      expect(["submitting", "confirmed"]).toContain(retried.body.data.status)
    }
    expect(retries.some((retried) => retried.body.data.status === "confirmed")).toBe(true)
    const settled = await waitTerminal(service.baseUrl, txId)
    expect(settled.data.status).toBe("confirmed")
    expect(settled.data.history.filter((entry) => entry.message?.includes("of an earlier attempt landed: adopted"))).toHaveLength(1)
    expect(await balance(destination)).toBe(0.2 * SOL)
    // Nothing was built or signed again.
    expect(settled.data.history.filter((entry) => entry.status === "signing")).toHaveLength(1)
  }, 90_000)

  it("two retries sent at once: one moves the record, the other answers what a retry sent just after would (400, nothing changed), while an earlier signature may still land and once it cannot; paid once", async () => {
    const wallet = await createWallet(service.baseUrl, SOL)
    // The bytes never reach the ledger: the outbox gives up and leaves the transfer unresolved, which an earlier
    // version wrote as failed (while its signature could still land until the blockhash expired).
    proxy.add({ methods: ["sendTransaction"], action: { kind: "unavailable" }, forMs: 3_000 })
    const { txId, destination } = await transfer(wallet.id, 0.1 * SOL)
    expect((await waitUnresolved(txId)).status).toBe("submitting")
    const rewritten = await writeFailedAsBefore(txId)
    expect(rewritten).toHaveLength(1)
    const retryTwice = async () => {
      const answers = await Promise.all([1, 2].map(() => client().transactions.retry({ params: { txId } })))
      return [...answers].sort((a, b) => a.status - b.status)
    }

    // Both retries read the record failed before either asks the chain (its statuses answer 300 ms late for a
    // moment). The first puts it back to submitting for the resolver (its signature may still land); the other
    // finds it moved and answers as any later retry: submitting, nothing changed (it answered "changed meanwhile").
    proxy.add({ methods: ["getSignatureStatuses"], action: { kind: "delay", ms: 300 }, forMs: 1_000 })
    const [reopened, refused] = await retryTwice()
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(202)
    expect(reopened.body.data).toMatchObject({ id: txId, status: "submitting" })
    expect(refused.status, JSON.stringify(refused.body)).toBe(400)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", data: { id: txId, status: "submitting" } })
    expect(refused.body.error).toMatch(/is submitting: .*Nothing was changed/)

    // The resolver proves it did not land once its blockhash expired. Two retries again: one builds it anew,
    // the other answers as a retry sent after that one would (the record is no longer failed).
    const notLanded = (await waitTerminal(service.baseUrl, txId)).body
    expect(notLanded.error).toMatch(/^not landed: blockhash expired/)
    const [rebuilt, refusedAgain] = await retryTwice()
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(202)
    expect(refusedAgain.status, JSON.stringify(refusedAgain.body)).toBe(400)
    expect(refusedAgain.body.error).toMatch(/^transaction \S+ is (pending|simulating|policy_eval|signing|submitting|confirmed)(; only failed transactions can be retried|: )/)

    const settled = (await waitTerminal(service.baseUrl, txId)).body.data
    expect(settled.status).toBe("confirmed")
    expect(settled.history.filter((entry) => entry.message === "retry requested")).toHaveLength(1)
    expect(await balance(destination)).toBe(0.1 * SOL)
  }, 60_000)

  it("a retry that waited on the record while another retry moved it answers the record as it found it (pending, 400), never 'changed meanwhile', though that attempt failed again before it answered; the next retry pays once", async () => {
    const wallet = await createWallet(service.baseUrl, SOL)
    // Failed "not landed" (retryable): the bytes never reached the ledger and its blockhash expired.
    proxy.add({ methods: ["sendTransaction"], action: { kind: "unavailable" }, forMs: 3_000 })
    const { txId, destination } = await transfer(wallet.id, 0.15 * SOL)
    const failed = (await waitTerminal(service.baseUrl, txId)).body.data
    expect(failed).toMatchObject({ status: "failed", errorCode: "CONFIRMATION_FAILED" })

    const answered = await raceAnotherRetry(txId, "FROM transactions WHERE id = $1%FOR UPDATE", () => client().transactions.retry({ params: { txId } }))
    expect(answered.status, JSON.stringify(answered.body)).toBe(400)
    expect(answered.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    expect(answered.body.error).toMatch(/^transaction \S+ is pending; only failed transactions can be retried/)
    expect(answered.body.error).not.toMatch(/changed meanwhile/)

    // It changed nothing: the record is as the other retry left it, and the next retry builds it anew, paying once.
    const left = await get(txId)
    expect(left).toMatchObject({ status: "failed", errorCode: "CONFIRMATION_FAILED" })
    expect(left.history.filter((entry) => entry.message === "retry requested")).toHaveLength(0)
    const retried = await client().transactions.retry({ params: { txId } })
    expect(retried.status, JSON.stringify(retried.body)).toBe(202)
    expect((await waitTerminal(service.baseUrl, txId)).data.status).toBe("confirmed")
    expect(await balance(destination)).toBe(0.15 * SOL)
  }, 60_000)

  it("a retry whose move to unresolved lost to another retry, and which then finds the record failed again, retries it as a later retry would (202, unresolved), never 'changed meanwhile'; its landed bytes are adopted, paid once", async () => {
    const wallet = await createWallet(service.baseUrl, SOL)
    // The bytes land and the answer is lost; the chain answers no statuses for now, so nothing can settle it and
    // whether it landed is open: unresolved, then written as failed as an earlier version did. A retry then moves
    // it back to unresolved (its statement, the transition, is the one that waits on the other retry's row lock).
    proxy.add({ methods: ["getSignatureStatuses", "getTransaction"], action: { kind: "unavailable" } })
    proxy.add({ methods: ["sendTransaction"], times: 1, action: { kind: "loseAnswer" }, then: [{ action: { kind: "unavailable" }, forMs: 4_000 }] })
    const { txId, destination } = await transfer(wallet.id, 0.05 * SOL)
    expect((await waitUnresolved(txId)).status).toBe("submitting")
    expect(await writeFailedAsBefore(txId)).toHaveLength(1)
    expect(await balance(destination)).toBe(0.05 * SOL)

    const answered = await raceAnotherRetry(txId, "UPDATE transactions t SET", () => client().transactions.retry({ params: { txId } }))
    expect(answered.status, JSON.stringify(answered.body)).toBe(202)
    expect(answered.body.data).toMatchObject({ id: txId, status: "submitting" })
    expect(answered.body.data.error).toMatch(/^unresolved: the chain did not answer/)

    // Once the chain answers again, the resolver finds the landed signature: confirmed, nothing built or signed again.
    proxy.clear()
    const settled = (await waitTerminal(service.baseUrl, txId)).body.data
    expect(settled.status).toBe("confirmed")
    expect(settled.history.filter((entry) => entry.status === "signing")).toHaveLength(1)
    expect(await balance(destination)).toBe(0.05 * SOL)
  }, 60_000)

  it("lagging endpoint: while the only endpoint answering statuses is 300 slots behind and says 'not found', the transaction is not failed on its word, even past its blockhash's expiry; it confirms once", async () => {
    const lagging = await startFaultProxy(ledger.rpcUrl)
    const honest = await startFaultProxy(ledger.rpcUrl)
    const pooled = await startService({ rpcUrl: lagging.url, env: { ...SERVICE_ENV, CHAIN_RPC_POOL_URLS: honest.url } })
    try {
      const wallet = await createWallet(pooled.baseUrl, SOL)
      // Block heights come from the honest endpoint (the lagging one fails those reads): past the blockhash's
      // expiry (about 7.5 s) they say it can no longer land. Until the lagging endpoint has been asked for the
      // statuses and then for a few seconds more, the honest endpoint answers no status and no transaction, so the
      // lagging one's "not found" (its context slot 300 behind) is all there is to take. (A fixed window of 10 s
      // was too short on a loaded machine: the expiry's check came after it, and the lagging endpoint was never asked.)
      lagging.lag(300)
      lagging.add({ methods: ["getBlockHeight", "getEpochInfo"], action: { kind: "unavailable" } })
      honest.add({ methods: ["getSignatureStatuses", "getTransaction"], action: { kind: "unavailable" } })
      const destination = Keypair.generate().publicKey.toBase58()
      const created = await submit(pooled.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 0.4 * SOL } })
      const txId = created.body.data.id
      const pooledClient = makeClient(pooled.baseUrl)
      await waitFor("the lagging endpoint asked for the statuses past the expiry", () => (lagging.seen.get("getSignatureStatuses") ?? 0) > 0, 60_000)
      await sleep(3_000)
      // Not failed on its word: the transaction waits (unresolved or still confirming), and the ledger has its bytes.
      const waiting = (await pooledClient.transactions.get({ params: { txId } })).body.data
      expect(waiting.status).toBe("submitting")
      expect(await balance(destination)).toBe(0.4 * SOL)

      // Once the honest endpoint answers again, it confirms, never having failed.
      honest.clear()
      const settled = (await waitTerminal(pooled.baseUrl, txId)).body.data
      expect(settled.status).toBe("confirmed")
      expect(settled.history.some((entry) => entry.status === "failed")).toBe(false)
      expect(await balance(destination)).toBe(0.4 * SOL)
    } finally {
      await pooled.stop()
      await lagging.close()
      await honest.close()
    }
  }, 90_000)
})
