/**
 * The scheduler and agent actors under a TestClock, against the real service, ledger and database:
 * the service runs without its own scheduler (AGENT_SCHEDULER_ENABLED=false) and each test starts one
 * in its TestClock runtime, so `TestClock.adjust` drives the ticks while the pipeline confirms in real time.
 */
import { it } from "@effect/vitest"
import { Chunk, type Duration, Effect, TestClock } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { startAgentScheduler } from "../../../actors/agentScheduler.js"
import { startTestLedger } from "../../support/ledger.js"
import { makeClient } from "../../support/client.js"
import { type RunningService, startService } from "../../support/service.js"
import { defined } from "../../support/defined.js"
import {
  agentActions,
  agentTransactions,
  autonomyState,
  createAgent,
  fundedWallet,
  ledgerBalance,
  serviceContext,
  sleepReal,
  TENANT_KEYS,
  tenant,
  waitAgentSettled,
  waitUntil
} from "./harness.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService

beforeAll(async () => {
  ledger = await startTestLedger()
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: { API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_SCHEDULER_ENABLED: "false", AGENT_LOOP_INTERVAL_MS: "1000", API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000" }
  })
})

afterAll(async () => {
  await service?.stop()
  await ledger?.close()
})

const promise = <A>(thunk: () => Promise<A>) => Effect.promise(thunk)

/** Starts a scheduler in this test's TestClock runtime, with the service's services. */
const scheduler = Effect.gen(function* () {
  const context = yield* serviceContext(service)
  yield* startAgentScheduler("agent-scheduler-test").pipe(Effect.provide(context))
})

/** Real-time polling until the actor sleeps towards its next tick (adjusting before that would skip it). */
const actorAsleep = (agentId: string, headers: Record<string, string>) =>
  Effect.gen(function* () {
    const next = Date.parse(defined((yield* promise(() => autonomyState(service, agentId, headers))).nextTickAt, "nextTickAt"))
    for (let attempt = 0; attempt < 600; attempt++) {
      const sleeps = yield* TestClock.sleeps()
      if (Chunk.some(sleeps, (deadline) => deadline === next)) return
      yield* promise(() => sleepReal(50))
    }
    return yield* Effect.die(new Error(`agent ${agentId} never slept towards ${new Date(next).toISOString()}`))
  })

/**
 * Advances the TestClock to the next tick (not for the first), then waits (real time) until tick `tick`
 * is done, i.e. the actor sleeps towards the tick after it, and the agent's transactions have settled.
 */
const tickTo = (agentId: string, headers: Record<string, string>, tick: number, advance: Duration.DurationInput) =>
  Effect.gen(function* () {
    if (tick > 1) yield* TestClock.adjust(advance)
    yield* promise(() => waitUntil(`tick ${tick}`, async () => (await autonomyState(service, agentId, headers)).tick >= tick))
    yield* actorAsleep(agentId, headers)
    yield* promise(() => waitAgentSettled(service, agentId))
  })

const stop = (agentId: string, headers: Record<string, string>) => promise(() => makeClient(service.baseUrl, headers).agents.stop({ params: { agentId }, body: {} }))

describe("agent scheduler under a TestClock", () => {
  it.scoped("a transfer step every 10 s with maxRuns 3 makes exactly 3 confirmed transfers", () =>
    Effect.gen(function* () {
      const headers = tenant(0)
      const sink = yield* promise(() => fundedWallet(service, headers, 1_000_000_000))
      const agentWallet = yield* promise(() => fundedWallet(service, headers))
      const agent = yield* promise(() =>
        createAgent(service, headers, {
          walletId: agentWallet.id,
          autonomy: {
            enabled: true, cadenceSeconds: 10,
            // The amount varies by tick: identical transfers within one blockhash would be one signature.
            steps: [{ id: "pay", type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: "{{tick}}000000" }, cooldownSeconds: 10, maxRuns: 3 }]
          }
        })
      )
      const before = yield* promise(() => ledgerBalance(ledger.rpcUrl, sink.publicKey))
      yield* scheduler
      for (let tick = 1; tick <= 5; tick++) yield* tickTo(agent.id, headers, tick, "10 seconds")

      const transactions = yield* promise(() => agentTransactions(service, agent.id))
      expect(transactions.map((tx) => tx.status)).toEqual(["confirmed", "confirmed", "confirmed"])
      expect(transactions.map((tx) => tx.idempotency_key)).toEqual([1, 2, 3].map((run) => `agent:${agent.id}:step:pay:run:${run}`))
      expect((yield* promise(() => ledgerBalance(ledger.rpcUrl, sink.publicKey))) - before).toBe(1_000_000 + 2_000_000 + 3_000_000)
      const state = yield* promise(() => autonomyState(service, agent.id, headers))
      expect(state).toMatchObject({ agentId: agent.id, status: "running", running: true, tick: 5, enabled: true, mode: "execute", lastError: null })
      expect(state.steps).toEqual([{ id: "pay", runs: 3, lastRunAt: new Date(20_000).toISOString(), nextEligibleAt: null }])
      yield* stop(agent.id, headers)
    })
  )

  it.scoped("a rule on balance_lamports fires only while its condition holds", () =>
    Effect.gen(function* () {
      const headers = tenant(1)
      const sink = yield* promise(() => fundedWallet(service, headers, 1_000_000_000))
      const agentWallet = yield* promise(() => fundedWallet(service, headers, 2_000_000_000))
      const agent = yield* promise(() =>
        createAgent(service, headers, {
          walletId: agentWallet.id,
          autonomy: {
            enabled: true, cadenceSeconds: 10,
            rules: [{
              id: "skim", when: [{ metric: "balance_lamports", op: "gt", value: 1_500_000_000 }, { metric: "known_wallets_count", op: "gte", value: 1 }],
              then: { type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: 600_000_000 } }, maxRuns: 5
            }]
          }
        })
      )
      const before = yield* promise(() => ledgerBalance(ledger.rpcUrl, sink.publicKey))
      yield* scheduler
      for (let tick = 1; tick <= 4; tick++) yield* tickTo(agent.id, headers, tick, "10 seconds")

      // 2 SOL > 1.5 SOL: fires once; then about 1.4 SOL: never again, though maxRuns allows 5.
      expect((yield* promise(() => agentTransactions(service, agent.id))).map((tx) => tx.status)).toEqual(["confirmed"])
      expect((yield* promise(() => ledgerBalance(ledger.rpcUrl, sink.publicKey))) - before).toBe(600_000_000)
      const state = yield* promise(() => autonomyState(service, agent.id, headers))
      expect(state.rules).toEqual([{ id: "skim", runs: 1, lastFiredAt: new Date(0).toISOString() }])
      yield* stop(agent.id, headers)
    })
  )

  it.scoped("paper mode records paper trades and moves nothing on the ledger", () =>
    Effect.gen(function* () {
      const headers = tenant(2)
      const sink = yield* promise(() => fundedWallet(service, headers, 1_000_000_000))
      const agentWallet = yield* promise(() => fundedWallet(service, headers))
      const agent = yield* promise(() =>
        createAgent(service, headers, {
          walletId: agentWallet.id,
          autonomy: {
            enabled: true, mode: "paper", cadenceSeconds: 10,
            steps: [{ id: "pay", type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: "{{tick}}000000" }, maxRuns: 2 }]
          }
        })
      )
      const before = yield* promise(() => ledgerBalance(ledger.rpcUrl, sink.publicKey))
      yield* scheduler
      for (let tick = 1; tick <= 3; tick++) yield* tickTo(agent.id, headers, tick, "10 seconds")

      const trades = (yield* promise(() => makeClient(service.baseUrl, headers).strategy.paperTrades({ params: { agentId: agent.id } }))).body.data
      expect(trades.map((trade) => [trade.type, String(trade.intent.lamports), trade.intent.destination])).toEqual([
        ["transfer_sol", "1000000", sink.publicKey],
        ["transfer_sol", "2000000", sink.publicKey]
      ])
      expect(yield* promise(() => agentTransactions(service, agent.id))).toEqual([])
      expect(yield* promise(() => ledgerBalance(ledger.rpcUrl, sink.publicKey))).toBe(before)
      yield* stop(agent.id, headers)
    })
  )

  it.scoped("maxActionsPerHour caps actions until the hour has passed", () =>
    Effect.gen(function* () {
      const headers = tenant(3)
      yield* promise(() => fundedWallet(service, headers, 1_000_000_000))
      const agentWallet = yield* promise(() => fundedWallet(service, headers))
      const agent = yield* promise(() =>
        createAgent(service, headers, {
          walletId: agentWallet.id,
          autonomy: {
            enabled: true, cadenceSeconds: 600, maxActionsPerHour: 2,
            steps: [{ id: "pay", type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: "{{tick}}000000" }, maxRuns: 100 }]
          }
        })
      )
      yield* scheduler
      // Ticks at 0, 10, 20, 30, 40, 50 minutes: only the first two act.
      for (let tick = 1; tick <= 6; tick++) yield* tickTo(agent.id, headers, tick, "10 minutes")
      expect((yield* promise(() => agentTransactions(service, agent.id))).length).toBe(2)
      // The cap held the step back: it ran twice in six ticks.
      expect((yield* promise(() => autonomyState(service, agent.id, headers))).steps[0]).toMatchObject({ id: "pay", runs: 2 })
      // At 60 and 70 minutes the first two have left the window.
      yield* tickTo(agent.id, headers, 7, "10 minutes")
      yield* tickTo(agent.id, headers, 8, "10 minutes")
      const transactions = yield* promise(() => agentTransactions(service, agent.id))
      expect(transactions.map((tx) => tx.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"])
      yield* stop(agent.id, headers)
    })
  )
})
