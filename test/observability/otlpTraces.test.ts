/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, a transfer's pipeline steps are exported over OTLP/HTTP (JSON)
 * as spans of the trace whose id is the create request's envelope traceId (its 32 hex digits), to a
 * receiver on loopback that speaks the collector's /v1/traces endpoint.
 */
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

interface ExportedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ key: string; value: { stringValue?: string } }>
}

/** A minimal OTLP/HTTP collector: every span of every POST /v1/traces (JSON encoding). */
const startReceiver = async () => {
  const spans: Array<ExportedSpan> = []
  const paths: Array<string> = []
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      paths.push(`${request.method} ${request.url} ${request.headers["content-type"]}`)
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<ExportedSpan> }> }>
      }
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return { url: `http://127.0.0.1:${port}`, spans, paths, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let receiver: Awaited<ReturnType<typeof startReceiver>>
let service: RunningService

beforeAll(async () => {
  receiver = await startReceiver()
  ledger = await startTestLedger()
  service = await startService({ rpcUrl: ledger.rpcUrl, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "custody-under-test" } })
})

afterAll(async () => {
  await service?.stop()
  await ledger?.close()
  await receiver?.close()
})

const attribute = (span: ExportedSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue

describe("OpenTelemetry traces over OTLP", () => {
  it("exports a span per pipeline step in the trace of the create request's traceId", async () => {
    const source = await createWallet(service.baseUrl, 2_000_000_000)
    const destination = await createWallet(service.baseUrl)
    const created = await submit(service.baseUrl, {
      walletId: source.id, type: "transfer_sol", protocol: "system-program",
      intent: { destination: destination.publicKey, lamports: 5_000_000 }
    })
    expect(created.status).toBe(201)
    const txId: string = created.body.data.id
    const traceId = created.body.traceId.replace(/-/g, "")
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
    expect((await waitSettled(service.baseUrl, txId)).body.data.status).toBe("confirmed")

    const ofTransaction = () => receiver.spans.filter((s) => s.name.startsWith("pipeline.") && attribute(s, "custody.tx_id") === txId)
    await waitFor("the transfer's step spans at the receiver", () => ofTransaction().some((s) => s.name === "pipeline.submitting"), 20_000)

    const steps = ofTransaction()
    expect(new Set(steps.map((s) => s.name))).toEqual(new Set(["pipeline.pending", "pipeline.signing", "pipeline.submitting"]))
    for (const span of steps) {
      expect(span.traceId).toBe(traceId)
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
    }
    // Spans made inside a step (the signer's, the audit log's) are in the same trace.
    const children = receiver.spans.filter((s) => steps.some((step) => step.spanId === s.parentSpanId))
    expect(children.length).toBeGreaterThan(0)
    // The hot path's own spans (made only when traces are exported) are among them: the policy decision's.
    expect(children.map((s) => s.name)).toContain("PolicyEngine.decideForTransaction")
    for (const child of children) expect(child.traceId).toBe(traceId)
    // The transaction's audit events (stages and the policy decision) carry the same traceId.
    const events = await makeClient(service.baseUrl).audit.list({ query: { txId } })
    expect(events.body.data.events.map((e: { eventType: string }) => e.eventType)).toContain("transaction.confirmed")
    expect(events.body.data.events.length).toBeGreaterThanOrEqual(6)
    for (const event of events.body.data.events) expect(event.traceId, event.eventType).toBe(created.body.traceId)
    expect(receiver.paths.every((p) => p.startsWith("POST /v1/traces application/json"))).toBe(true)
  })
})
