/**
 * GET /metrics in the Prometheus text format, read by an independent parser (prom2javascript): after a
 * real transfer on the local ledger it holds the spec's counters (the same numbers as
 * /api/v1/metrics), stage transitions, the pipeline's latency histograms, the outbox's depth, the RPC
 * pool's scores and the actors' restarts. A scraper needs the operator's key (x-api-key or Bearer).
 */
import { getMetricsFromStream, type PromHistogramData, type PromData, type PromMetrics } from "prom2javascript"
import { Readable } from "node:stream"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const env = useServiceWithLedger()

const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` }) => {
  const response = await fetch(`${env.service.baseUrl}/metrics`, { headers })
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text: await response.text() }
}

const parse = (text: string): Promise<PromMetrics> => getMetricsFromStream(Readable.from([text]))

const samples = (metrics: PromMetrics, family: string) => {
  const metric = metrics[family]
  if (metric === undefined) throw new Error(`no family ${family} in /metrics`)
  return metric
}

const valueOf = (metrics: PromMetrics, family: string, labels: Record<string, string> = {}) => {
  const found = (samples(metrics, family).data as Array<PromData>).find((d) =>
    Object.entries(labels).every(([k, v]) => d.labels[k] === v)
  )
  return found?.value
}

describe("GET /metrics (Prometheus text format)", () => {
  it("needs the operator's key, as x-api-key or a Bearer token", async () => {
    expect((await scrape({})).status).toBe(401)
    expect((await scrape({ authorization: "Bearer wrong-key" })).status).toBe(401)
    expect((await scrape({ "x-api-key": ADMIN_KEY })).status).toBe(200)
  })

  it("holds the spec's counters and the pipeline's histograms after a transfer", async () => {
    const source = await createWallet(env.service.baseUrl, 2_000_000_000)
    const destination = await createWallet(env.service.baseUrl)
    const created = await submit(env.service.baseUrl, {
      walletId: source.id, type: "transfer_sol", protocol: "system-program",
      intent: { destination: destination.publicKey, lamports: 10_000_000 }
    })
    expect(created.status).toBe(201)
    const settled = await waitSettled(env.service.baseUrl, created.body.data.id)
    expect(settled.body.data.status).toBe("confirmed")

    // Counters move right after the transition a client sees: wait until /metrics shows this one.
    let metrics: PromMetrics = {}
    await waitFor("the confirmation counted in /metrics", async () => {
      const got = await scrape()
      expect(got.status).toBe(200)
      metrics = await parse(got.text)
      return (valueOf(metrics, "custody_tx_confirmed_total") ?? 0) >= 1
    })
    const scraped = await scrape()
    expect(scraped.contentType).toContain("text/plain")
    expect(scraped.contentType).toContain("version=0.0.4")

    expect(samples(metrics, "custody_tx_confirmed_total").type).toBe("counter")
    expect(valueOf(metrics, "custody_audit_events_total", { event_type: "transaction.confirmed" })).toBeGreaterThanOrEqual(1)
    expect(valueOf(metrics, "custody_audit_events_total", { event_type: "transaction.created" })).toBeGreaterThanOrEqual(1)
    for (const status of ["simulating", "policy_eval", "signing", "submitting", "confirmed"]) {
      expect(valueOf(metrics, "custody_tx_stage_transitions_total", { status }), status).toBeGreaterThanOrEqual(1)
    }
    expect(valueOf(metrics, "custody_policy_evaluations_total", { decision: "allow" })).toBeGreaterThanOrEqual(1)
    expect(valueOf(metrics, "custody_tx_confirmation_latency_ms_total")).toBeGreaterThan(0)

    // The same numbers as the spec's JSON map.
    const json = (await api<Record<string, number>>(env.service.baseUrl, "GET", "/api/v1/metrics")).body.data
    expect(valueOf(metrics, "custody_tx_confirmed_total")).toBe(json["tx.confirmed"])
    expect(valueOf(metrics, "custody_audit_events_total", { event_type: "wallet.created" })).toBe(json["audit_event.wallet.created"])

    const steps = samples(metrics, "custody_pipeline_step_duration_seconds")
    expect(steps.type).toBe("histogram")
    const pendingStep = (steps.data as Array<PromHistogramData>).find((d) => d.labels.status === "pending")
    expect(pendingStep?.count).toBeGreaterThanOrEqual(1)
    expect(pendingStep?.buckets["+Inf"]).toBe(pendingStep?.count)
    expect(pendingStep?.sum).toBeGreaterThan(0)
    const submitStep = (steps.data as Array<PromHistogramData>).find((d) => d.labels.status === "submitting")
    expect(submitStep?.count).toBeGreaterThanOrEqual(1)

    const confirmation = samples(metrics, "custody_tx_confirmation_latency_seconds")
    expect(confirmation.type).toBe("histogram")
    expect((confirmation.data as Array<PromHistogramData>)[0].count).toBeGreaterThanOrEqual(1)

    expect(samples(metrics, "custody_outbox_jobs").type).toBe("gauge")
    expect(valueOf(metrics, "custody_outbox_jobs", { status: "done" })).toBeGreaterThanOrEqual(1)
    expect(valueOf(metrics, "custody_outbox_jobs", { status: "pending" })).toBe(0)
    expect(valueOf(metrics, "custody_webhook_deliveries", { status: "dead" })).toBe(0)

    const scores = samples(metrics, "custody_rpc_endpoint_score").data as Array<PromData>
    expect(scores.length).toBe(1)
    expect(scores[0].value).toBeGreaterThan(0)

    const restarts = samples(metrics, "custody_actor_restarts_total").data as Array<PromData>
    expect(restarts.some((d) => d.labels.actor === "pipeline-worker-1" && d.value === 0)).toBe(true)
  })

  it("holds the process's CPU, memory and event-loop figures, and the statements it sent to PostgreSQL (a transfer's among them)", async () => {
    const before = await parse((await scrape()).text)
    const source = await createWallet(env.service.baseUrl, 2_000_000_000)
    const created = await submit(env.service.baseUrl, {
      walletId: source.id, type: "transfer_sol", protocol: "system-program",
      intent: { destination: (await createWallet(env.service.baseUrl)).publicKey, lamports: 1_000_000 }
    })
    expect((await waitSettled(env.service.baseUrl, created.body.data.id)).body.data.status).toBe("confirmed")
    const after = await parse((await scrape()).text)

    expect(samples(after, "custody_db_statements_total").type).toBe("counter")
    const sent = (valueOf(after, "custody_db_statements_total") ?? 0) - (valueOf(before, "custody_db_statements_total") ?? 0)
    // Two wallets, a transfer through every stage, the reads between: well over ten round trips, far under a thousand.
    expect(sent).toBeGreaterThan(10)
    expect(sent).toBeLessThan(1_000)

    expect(samples(after, "process_cpu_seconds_total").type).toBe("counter")
    expect(valueOf(after, "process_cpu_seconds_total")).toBeGreaterThan(valueOf(before, "process_cpu_seconds_total") ?? 0)
    expect(valueOf(after, "process_resident_memory_bytes")).toBeGreaterThan(32 * 1024 * 1024)
    expect(valueOf(after, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0)
    expect(samples(after, "nodejs_eventloop_lag_p99_seconds").type).toBe("gauge")
  })

  it("keeps a posted counter's exact name as a label", async () => {
    await makeClient(env.service.baseUrl).audit.incrementMetric({ body: { name: "custom.scraped-jobs", value: 7 } })
    const metrics = await parse((await scrape()).text)
    expect(valueOf(metrics, "custody_counter_total", { name: "custom.scraped-jobs" })).toBe(7)
  })
})
