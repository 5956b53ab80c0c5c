/**
 * Never pay twice, as a property (issue 30): fast-check draws a fault schedule for the RPC (answers
 * lost after the ledger acted, 503 bursts, delays past the client's timeout, duplicated requests, on the
 * first endpoint or on both, and a second endpoint lagging by N slots) and a few dozen transfers from several wallets (one of them an
 * agent's), each with a client behaviour (wait for the answer, poll, repost with the same idempotency
 * key, retry on CONFIRMATION_FAILED / PIPELINE_ERROR). When the faults are lifted and every transaction
 * settled, it asserts what a careful operator would check on chain and in the service:
 * - every accepted transaction ends confirmed or failed;
 * - each destination's balance change equals the sum of its confirmed records, exactly;
 * - no record is failed whose signature (of any attempt) landed;
 * - each wallet's counted daily spend (and the agent's budget spend) equals what landed;
 * - the retry route never answers 5xx, and a repost with the same key answers the same transaction.
 */
import { SqlClient } from "@effect/sql"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reconcileBudgets } from "../../actors/budgetReconciler.js"
import { makeClient } from "../support/client.js"
import { startFaultProxy, type FaultAction, type FaultProxy } from "../support/faultProxy.js"
import { startTestLedger } from "../support/ledger.js"
import { type RunningService, startService } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"
import { sleep, waitFor } from "../support/wait.js"
import type { Transaction } from "../../schemas/transaction.js"

const SOL = 1_000_000_000
const WALLETS = 3

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let faulty: FaultProxy
let lagging: FaultProxy
let service: RunningService

beforeAll(async () => {
  // 30 ms slots: a blockhash expires (150 slots) in about 4.5 s, so unresolved transactions settle quickly.
  ledger = await startTestLedger({ slotMs: 30 })
  faulty = await startFaultProxy(ledger.rpcUrl)
  lagging = await startFaultProxy(ledger.rpcUrl)
  service = await startService({
    rpcUrl: faulty.url,
    env: {
      CHAIN_RPC_POOL_URLS: lagging.url,
      TX_OUTBOX_MAX_ATTEMPTS: "2",
      CHAIN_RPC_MAX_RETRIES: "0",
      CHAIN_RPC_RETRY_DELAY_MS: "50",
      CHAIN_RPC_TIMEOUT_MS: "500",
      TX_SETTLEMENT_SWEEP_MS: "200"
    }
  })
})

afterAll(async () => {
  await service?.stop()
  await faulty?.close()
  await lagging?.close()
  await ledger?.close()
})

const client = () => makeClient(service.baseUrl)
const connection = () => new Connection(ledger.rpcUrl, "confirmed")

type Behaviour = "wait" | "poll" | "repost" | "retry"

interface Fault {
  readonly atMs: number
  readonly action: FaultAction
  readonly methods?: ReadonlyArray<string>
  readonly times?: number
  readonly forMs?: number
  /** On both endpoints (an outage of the network, not of one provider), else on the first only. */
  readonly both: boolean
  /** The first endpoint's next fault is followed by an outage of both endpoints this long (the case). */
  readonly outageMs?: number
}

const at = fc.integer({ min: 0, max: 2_500 })
const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  // sendTransaction lands, its answer is lost, then neither endpoint answers for a while: the outbox gives up
  {
    arbitrary: fc.record({ atMs: at, action: fc.constant<FaultAction>({ kind: "loseAnswer" }), methods: fc.constant(["sendTransaction"]), times: fc.constant(1), both: fc.constant(false), outageMs: fc.integer({ min: 1_500, max: 3_000 }) }),
    weight: 3
  },
  fc.record({ atMs: at, action: fc.constant<FaultAction>({ kind: "loseAnswer" }), methods: fc.constant(["getTransaction", "getSignatureStatuses", "getEpochInfo"]), times: fc.integer({ min: 1, max: 6 }), both: fc.boolean() }),
  fc.record({ atMs: at, action: fc.constant<FaultAction>({ kind: "unavailable" }), forMs: fc.integer({ min: 200, max: 2_500 }), both: fc.boolean() }),
  fc.record({ atMs: at, action: fc.constant<FaultAction>({ kind: "delay", ms: 700 }), methods: fc.constant(["sendTransaction", "getTransaction"]), times: fc.integer({ min: 1, max: 4 }), both: fc.boolean() }),
  fc.record({ atMs: at, action: fc.constant<FaultAction>({ kind: "duplicate" }), methods: fc.constant(["sendTransaction"]), times: fc.integer({ min: 1, max: 6 }), both: fc.constant(false) })
)

const transferArb = fc.record({
  wallet: fc.integer({ min: 0, max: WALLETS - 1 }),
  // above the rent-exempt minimum of a new account (about 890,880 lamports)
  lamports: fc.integer({ min: 1_000_000, max: 3_000_000 }),
  behaviour: fc.constantFrom<Behaviour>("wait", "poll", "repost", "retry"),
  startMs: fc.integer({ min: 0, max: 2_000 })
})

const scenarioArb = fc.record({
  faults: fc.array(faultArb, { minLength: 1, maxLength: 5 }),
  lagSlots: fc.integer({ min: 0, max: 300 }),
  transfers: fc.array(transferArb, { minLength: 20, maxLength: 30 })
})

const get = async (txId: string) => (await client().transactions.get({ params: { txId } })).body.data as Transaction
const terminal = (record: Transaction) => record.status === "confirmed" || record.status === "failed"
const retryable = (record: Transaction) => record.status === "failed" && (record.errorCode === "CONFIRMATION_FAILED" || record.errorCode === "PIPELINE_ERROR")

/** Answers of the retry route that no state may produce. */
const fiveHundreds: Array<string> = []

const retry = async (txId: string) => {
  const answer = await client().transactions.retry({ params: { txId } })
  if (answer.status >= 500) fiveHundreds.push(`${txId}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer
}

/** Creates the transfer (the agent's wallet through /agents/<id>/execute, the others through POST /transactions); answers its id, if accepted. */
const create = async (wallet: { readonly id: string; readonly agentId?: string }, intent: { destination: string; lamports: number }, waitMs: number, idempotencyKey?: string) => {
  const body = { type: "transfer_sol", protocol: "system-program", intent, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) } as const
  const answer = wallet.agentId === undefined
    ? await submit(service.baseUrl, { walletId: wallet.id, ...body }, undefined, `?waitMs=${waitMs}`)
    : await client().agents.execute({ params: { agentId: wallet.agentId }, query: { waitMs: String(waitMs) }, body })
  return answer.body.data?.id
}

/** One client's transfer, as its behaviour does it; answers the transaction's id (undefined: never accepted). */
const act = async (wallet: { readonly id: string; readonly agentId?: string }, transfer: { readonly lamports: number; readonly behaviour: Behaviour; readonly startMs: number }, destination: string) => {
  await sleep(transfer.startMs)
  const intent = { destination, lamports: transfer.lamports }
  switch (transfer.behaviour) {
    case "wait":
      return create(wallet, intent, 10_000)
    case "poll": {
      const id = await create(wallet, intent, 0)
      for (let i = 0; id !== undefined && i < 100 && !terminal(await get(id)); i++) await sleep(50)
      return id
    }
    case "repost": {
      const key = `repost-${destination}`
      const [first, second] = await Promise.all([create(wallet, intent, 0, key), sleep(100).then(() => create(wallet, intent, 2_000, key))])
      const third = await create(wallet, intent, 0, key)
      const ids = new Set([first, second, third].filter((id) => id !== undefined))
      expect(ids.size, `reposts with key ${key} answered ${[...ids].join(", ")}`).toBeLessThanOrEqual(1)
      return [...ids][0]
    }
    case "retry": {
      const id = await create(wallet, intent, 0)
      if (id === undefined) return undefined
      for (let retries = 0, i = 0; retries < 3 && i < 200; i++) {
        const record = await get(id)
        if (record.status === "confirmed") break
        const unresolved = record.status === "submitting" && (record.error ?? "").startsWith("unresolved")
        if (retryable(record) || unresolved) {
          const answer = await retry(id)
          // A retry of an unresolved transaction answers its state and changes nothing.
          if (unresolved) expect(answer.status).toBe(400)
          retries++
        }
        await sleep(100)
      }
      return id
    }
  }
}

const countedDailySpend = (walletId: string) =>
  service.runtime.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ spent: string }>`
      SELECT spent_lamports::text AS spent FROM policy_daily_spend WHERE wallet_id = ${walletId} AND utc_day = ${new Date().toISOString().slice(0, 10)}
    `).pipe(Effect.map((rows) => BigInt(rows[0]?.spent ?? "0")))
  )

describe("never pay twice, whatever the RPC does", () => {
  it("after random faults and client behaviours, balances, records and counted spend agree with the chain", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        faulty.clear()
        lagging.clear()
        const wallets = await Promise.all(Array.from({ length: WALLETS }, async (_, index) => {
          const wallet = await createWallet(service.baseUrl, 2 * SOL)
          await client().policies.create({ body: { walletId: wallet.id, name: "daily", rules: [{ type: "spending_limit", maxLamportsPerDay: 100 * SOL }] } })
          if (index > 0) return { id: wallet.id }
          const agent = (await client().agents.create({ body: { name: "spender", walletId: wallet.id, budgetLamports: 50 * SOL } })).body.data
          return { id: wallet.id, agentId: agent.id }
        }))
        const destinations = scenario.transfers.map(() => Keypair.generate().publicKey.toBase58())

        lagging.lag(scenario.lagSlots)
        const schedule = scenario.faults.map((fault) =>
          sleep(fault.atMs).then(() => {
            if (fault.outageMs === undefined) {
              faulty.add(fault)
              if (fault.both) lagging.add(fault)
              return
            }
            const outage = { action: { kind: "unavailable" }, forMs: fault.outageMs } as const
            faulty.add({ ...fault, then: [outage] })
            lagging.add({ ...outage, forMs: fault.outageMs + 500 })
          })
        )
        const ids = await Promise.all(scenario.transfers.map((transfer, i) => act(wallets[transfer.wallet], transfer, destinations[i])))
        await Promise.all(schedule)

        // Lift the faults and let everything settle (the resolver, blockhash expiry), then look.
        faulty.clear()
        lagging.clear()
        const records = new Map<string, Transaction>()
        for (const id of new Set(ids.filter((id): id is string => id !== undefined))) {
          let record = await get(id)
          // (past the bound the invariant below names what is still open)
          await waitFor(`${id} settled`, async () => terminal((record = await get(id))), 30_000).catch(() => undefined)
          records.set(id, record)
        }
        await service.runtime.runPromise(Effect.asVoid(reconcileBudgets))

        // Every accepted transaction ends confirmed or failed.
        const unsettled = [...records.values()].filter((record) => !terminal(record))
        expect(unsettled.map((record) => `${record.id} ${record.status} ${record.error ?? ""}`)).toEqual([])

        // Each destination received exactly what its confirmed records say.
        const confirmedTo = new Map<string, bigint>()
        for (const record of records.values()) {
          if (record.status !== "confirmed") continue
          const destination = String(record.intent.destination)
          confirmedTo.set(destination, (confirmedTo.get(destination) ?? 0n) + BigInt(String(record.intent.lamports)))
        }
        const balances = await connection().getMultipleAccountsInfo(destinations.map((address) => new PublicKey(address)))
        destinations.forEach((destination, i) => {
          expect(BigInt(balances[i]?.lamports ?? 0), `destination ${destination}`).toBe(confirmedTo.get(destination) ?? 0n)
        })

        // No record is failed whose signature, of any attempt, landed.
        for (const record of records.values()) {
          if (record.status !== "failed") continue
          const signatures = [record.signature, ...record.history.map((entry) => entry.earlierAttempt?.signature)].filter((s): s is string => typeof s === "string")
          if (signatures.length === 0) continue
          const statuses = (await connection().getSignatureStatuses(signatures, { searchTransactionHistory: true })).value
          expect(statuses.map((status, i) => (status === null ? null : `${signatures[i]} landed`)), `failed ${record.id}: ${record.error}`).toEqual(signatures.map(() => null))
        }

        // Each wallet's counted daily spend, and the agent's budget, equal what landed.
        for (const wallet of wallets) {
          const landed = [...records.values()].filter((record) => record.walletId === wallet.id && record.status === "confirmed")
            .reduce((sum, record) => sum + BigInt(String(record.intent.lamports)), 0n)
          expect(await countedDailySpend(wallet.id), `daily spend of ${wallet.id}`).toBe(landed)
          if (wallet.agentId !== undefined) {
            const budget = (await client().agents.budget({ params: { agentId: wallet.agentId } })).body.data
            expect(BigInt(budget.spentLamportsToday), `agent ${wallet.agentId} spend`).toBe(landed)
          }
        }
        expect(fiveHundreds).toEqual([])
      }),
      { numRuns: 3, endOnFailure: true }
    )
    // The schedules did hit the service (a run whose faults all missed would prove nothing).
    expect([...faulty.faults.values()].reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0)
  }, 600_000)
})
