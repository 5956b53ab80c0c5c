/**
 * The rows a transfer adds are keyed by time-ordered ids (src/db/rowIds.ts): the transaction, its
 * outbox job and its audit events, so their inserts land at the right edge of their indexes. Shown
 * through the service: transfers made one after another have version 7 ids in the order they were made,
 * and so do their audit events and jobs.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitTerminal } from "../support/transactions.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)
const isVersion7 = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)

describe("time-ordered row ids", () => {
  it("keys transfers, their audit events and outbox jobs in the order they were made", async () => {
    const source = await createWallet(env.service.baseUrl, 2_000_000_000)
    const destination = await createWallet(env.service.baseUrl)
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const created = await submit(env.service.baseUrl, {
        walletId: source.id, type: "transfer_sol", protocol: "system-program",
        intent: { destination: destination.publicKey, lamports: 1_000_000 + i }
      })
      const id = created.data?.id ?? ""
      expect((await waitTerminal(env.service.baseUrl, id)).data.status).toBe("confirmed")
      ids.push(id)
    }
    expect(ids.every(isVersion7)).toBe(true)
    expect([...ids].sort()).toEqual(ids)

    const eventIds: Array<ReadonlyArray<string>> = []
    for (const id of ids) {
      const events = (await client().audit.list({ query: { txId: id } })).data?.events ?? []
      // created, built, simulated, policy evaluated (twice: the engine's and the pipeline's), signed, submitted, confirmed
      expect(events.length).toBeGreaterThanOrEqual(7)
      expect(events.every((event) => isVersion7(event.id))).toBe(true)
      eventIds.push(events.map((event) => event.id))
    }
    // every event of a later transfer sorts after every event of an earlier one
    for (let i = 1; i < eventIds.length; i++) {
      expect([...eventIds[i - 1]!].sort().at(-1)! < [...eventIds[i]!].sort()[0]!).toBe(true)
    }

    const rows = await env.service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: string; tx_id: string }>`SELECT id::text, tx_id::text FROM outbox_jobs WHERE tx_id IN ${sql.in(ids)}`))
    expect(rows).toHaveLength(3)
    const jobOf = new Map(rows.map((row) => [row.tx_id, row.id]))
    const jobs = ids.map((id) => jobOf.get(id) ?? "")
    expect(jobs.every(isVersion7)).toBe(true)
    expect([...jobs].sort()).toEqual(jobs)
  })
})
