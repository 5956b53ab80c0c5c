/**
 * A declared route's answer leaves encoded by its success schema (docs/decisions/api-contract.md): the
 * real router (`buildRouter`) and `route()` serve a handful of test endpoints through a web handler, and
 * the answers show that an undeclared field is dropped (and warned about), amounts leave as exact
 * integers, an answer of the wrong shape is a 500 envelope whose log names the field but not its value,
 * and a failed record is encoded too while other failures pass as they are.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import { Effect, Logger, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Amount, Uuid } from "../../schemas/common.js"
import { endpoint } from "../../schemas/api/endpoint.js"
import { NotFound } from "../../schemas/errors.js"
import { Caller, type CallerInfo } from "../../src/gateway/caller.js"
import { failureReply, ok, type Reply } from "../../src/gateway/envelope.js"
import { buildRouter, route } from "../../src/gateway/route.js"

const Thing = Schema.Struct({ id: Uuid, lamports: Amount, note: Schema.optional(Schema.String) })
const ThingsApi = {
  get: endpoint("test", "GET", "/thing", { summary: "a thing", success: Thing }),
  record: endpoint("test", "GET", "/record", { summary: "a record, also on failure", success: Thing, recordOnFailure: true }),
  missing: endpoint("test", "GET", "/missing", { summary: "never found", success: Thing })
}
const ID = "4b0b4c0e-7f3e-4a43-9b1e-2c54c2f1f0a1"
const caller: CallerInfo = { keyId: "k", tenant: "t", readTenant: "t", scopes: new Set(), traceId: ID }

/** Serves one answer per path through the real router; collects what the routes logged. */
const serve = (answers: Record<string, Reply>) => {
  const logged: Array<string> = []
  const logger = Logger.make(({ message }) => logged.push(JSON.stringify(message)))
  const router = buildRouter([
    route(ThingsApi.get, Effect.sync(() => answers["/thing"]!)),
    route(ThingsApi.record, Effect.sync(() => answers["/record"]!)),
    route(ThingsApi.missing, Effect.fail(new NotFound({ resource: "thing", id: "x" })))
  ])
  const app = router.pipe(Effect.provideService(Caller, caller), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
  const handler = HttpApp.toWebHandler(app as never)
  const get = async (path: string) => {
    const response = await handler(new Request(`http://test${path}`))
    return { status: response.status, text: await response.text() }
  }
  return { get, logged }
}

describe("answers encoded through the declared success schema", () => {
  it("drops a field the schema does not name, says so once in the log, and writes amounts as exact integers", async () => {
    const { get, logged } = serve({ "/thing": ok({ id: ID, lamports: 18_446_744_073_709_551_615n, secretKey: "do-not-leak" }) })
    const first = await get("/thing")
    expect(first.status).toBe(200)
    expect(first.text).toContain('"data":{"id":"4b0b4c0e-7f3e-4a43-9b1e-2c54c2f1f0a1","lamports":18446744073709551615}')
    expect(first.text).not.toContain("secretKey")
    await get("/thing")
    const warnings = logged.filter((line) => line.includes("answer fields not in the contract were dropped"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain("data.secretKey")
    expect(warnings[0]).not.toContain("do-not-leak")
  })

  it("answers a value of the wrong shape with the 500 envelope and logs the field, never the value", async () => {
    const { get, logged } = serve({ "/thing": ok({ id: ID, lamports: 5n, note: { password: "hunter2" } }) })
    const answer = await get("/thing")
    expect(answer.status).toBe(500)
    expect(JSON.parse(answer.text)).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "gateway", traceId: ID, data: null })
    const errors = logged.filter((line) => line.includes("answer does not match its declared schema"))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain("data.note")
    expect(errors[0]).not.toContain("hunter2")
  })

  it("accepts the schema's encoded form (a record kept as stored) after checking it in full", async () => {
    const { get } = serve({ "/thing": ok({ id: ID, lamports: "9007199254740993", extra: 1 }) })
    const answer = await get("/thing")
    expect(answer.status).toBe(200)
    // Past 2^53 Amount's encoded form is a decimal string, which wireJson writes as an exact integer in a lamports field.
    expect(answer.text).toContain('"data":{"id":"4b0b4c0e-7f3e-4a43-9b1e-2c54c2f1f0a1","lamports":9007199254740993}')
  })

  it("encodes the record a failed transaction-like answer carries, and leaves other failures' data alone", async () => {
    const failed: Reply = { ...failureReply(new NotFound({ resource: "x", id: "y" }), { id: ID, lamports: 7n, internal: true }), httpStatus: 500 }
    const { get } = serve({ "/record": failed })
    const record = await get("/record")
    expect(record.status).toBe(500)
    expect(JSON.parse(record.text)).toMatchObject({ status: "failure", data: { id: ID, lamports: 7 } })
    expect(record.text).not.toContain("internal")
    const missing = await get("/missing")
    expect(missing.status).toBe(404)
    expect(JSON.parse(missing.text)).toMatchObject({ status: "failure", errorCode: expect.any(String), data: null })
  })
})
