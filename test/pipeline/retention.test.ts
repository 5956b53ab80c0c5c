/**
 * Retention (issue 35): the supervised retention actor deletes audit events older than
 * AUDIT_RETENTION_DAYS and prunes the history of terminal transactions older than
 * TX_HISTORY_RETENTION_DAYS, and nothing younger. A pruned transaction keeps its record and its
 * execution proof, which still recomputes from /replay as docs/proof.md says; its outbox job is gone.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { RuntimeApi } from "../../schemas/api/runtime.js"
import { canonicalJson, sha256Hex } from "../../src/pipeline/proof.js"
import { dataOf, makeClient, type WireDataOf } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { sleep } from "../support/wait.js"

const env = useServiceWithLedger({ env: { AUDIT_RETENTION_DAYS: "30", TX_HISTORY_RETENTION_DAYS: "30", RETENTION_SWEEP_MS: "300" } })
const client = () => makeClient(env.service.baseUrl)
const query = <T extends object>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<T>, unknown>) =>
  env.service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, run))

const transfer = async (walletId: string) => {
  const created = await submit(env.service.baseUrl, {
    walletId, type: "transfer_sol", protocol: "system-program",
    intent: { destination: "11111111111111111111111111111112", lamports: 1_000_000 }
  })
  const settled = await waitSettled(env.service.baseUrl, created.body.data.id)
  expect(settled.data.status).toBe("confirmed")
  return settled.data
}

describe("retention", () => {
  it("prunes what is older than the settings (history kept verifiable) and keeps everything younger", async () => {
    const actors = await api<WireDataOf<typeof RuntimeApi.actors>>(env.service.baseUrl, "GET", "/api/v1/runtime/actors")
    expect(actors.body.data.actors.map((actor) => actor.name)).toContain("retention")

    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const old = await transfer(wallet.id)
    const young = await transfer(wallet.id)
    const oldEvents = await query<{ n: string }>((sql) => sql`SELECT count(*)::text AS n FROM audit_events WHERE tx_id = ${old.id}`)
    expect(Number(oldEvents[0]?.n)).toBeGreaterThan(0)

    // 40 days ago: the old transaction and every audit event of the start (the wallet's creation included).
    await query((sql) => sql`
      UPDATE transactions SET created_at = created_at - interval '40 days', updated_at = updated_at - interval '40 days', confirmed_at = confirmed_at - interval '40 days'
      WHERE id = ${old.id} RETURNING id`)
    const aged = await query<{ id: string }>((sql) => sql`
      UPDATE audit_events SET created_at = created_at - interval '40 days' WHERE tx_id IS DISTINCT FROM ${young.id} RETURNING id`)
    expect(aged.length).toBeGreaterThan(oldEvents.length)

    // The actor's next sweep (every 300 ms).
    const deadline = Date.now() + 20_000
    for (;;) {
      const [row] = await query<{ pruned: boolean; events: string }>((sql) => sql`
        SELECT history_pruned_at IS NOT NULL AS pruned,
          (SELECT count(*)::text FROM audit_events WHERE id IN (SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(aged.map((e) => e.id))}::jsonb))) AS events
        FROM transactions WHERE id = ${old.id}`)
      if (row?.pruned === true && row.events === "0") break
      if (Date.now() > deadline) throw new Error(`not pruned: ${JSON.stringify(row)}`)
      await sleep(100)
    }

    // The old transaction: the record, one history entry saying what happened, no outbox job.
    const record = dataOf(await client().transactions.get({ params: { txId: old.id } }))
    expect(record).toMatchObject({ id: old.id, status: "confirmed", signature: old.signature })
    expect(record.history).toHaveLength(1)
    expect(record.history[0]).toMatchObject({ status: "confirmed", stage: "completed" })
    expect(record.history[0]?.message).toMatch(/pruned/)
    const jobs = await query<{ tx_id: string }>((sql) => sql`SELECT tx_id FROM outbox_jobs WHERE tx_id IN (${old.id}, ${young.id})`)
    expect(jobs.map((job) => job.tx_id)).toEqual([young.id])

    // Its proof still recomputes from /replay (docs/proof.md).
    const replay = dataOf(await client().transactions.replay({ params: { txId: old.id } }))
    const proof = dataOf(await client().transactions.proof({ params: { txId: old.id } }))
    const intentHash = sha256Hex(canonicalJson(replay.request.intent))
    const policyHash = sha256Hex(canonicalJson(replay.policyDecision))
    const simulationHash = sha256Hex(canonicalJson(replay.simulation))
    expect({ intentHash, policyHash, simulationHash }).toEqual({ intentHash: proof.intentHash, policyHash: proof.policyHash, simulationHash: proof.simulationHash })
    expect(sha256Hex([intentHash, policyHash, simulationHash, proof.signature ?? ""].join("|"))).toBe(proof.proofHash)

    // The young transaction and its events are untouched.
    const youngRecord = dataOf(await client().transactions.get({ params: { txId: young.id } }))
    expect(youngRecord.history.map((entry) => entry.status)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"])
    const youngEvents = await query<{ n: string }>((sql) => sql`SELECT count(*)::text AS n FROM audit_events WHERE tx_id = ${young.id}`)
    expect(Number(youngEvents[0]?.n)).toBeGreaterThan(0)
    const [pruned] = await query<{ n: string }>((sql) => sql`SELECT count(*)::text AS n FROM transactions WHERE history_pruned_at IS NOT NULL`)
    expect(pruned?.n).toBe("1")
  })
})
