/**
 * The OpenAPI document generated from the routes' declarations: it passes an independent OpenAPI 3.1
 * validator (@seriousme/openapi-schema-validator), every response schema compiles in ajv (draft
 * 2020-12), each operation names the scope its key needs, and a route declared by method and path
 * alone still appears, with any JSON as data. The e2e check of real answers is test/e2e/openApiContract.test.ts.
 */
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { routes } from "../../src/app.js"
import { ok } from "../../src/gateway/envelope.js"
import { openApiDocument } from "../../src/gateway/openApi.js"
import { route } from "../../src/gateway/route.js"
import { contractChecker, type OpenApiDocument } from "../support/contract.js"

const document = JSON.parse(JSON.stringify(openApiDocument(routes, { title: "test", version: "1" }))) as OpenApiDocument & {
  paths: Record<string, Record<string, Record<string, unknown>>>
}
const operation = (method: string, path: string) => document.paths[path]?.[method] as Record<string, any>
/** A schema, or the component it refers to. */
const resolved = (schema: { $ref?: string }): Record<string, any> =>
  schema.$ref === undefined ? schema : (document.components.schemas[schema.$ref.replace("#/components/schemas/", "")] as Record<string, any>)

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document by an independent validator", async () => {
    const validator = new Validator()
    const result = await validator.validate(document as never)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe("3.1")
  })

  it("lists every route of the gateway once, with an operationId of its own", () => {
    const listed = Object.values(document.paths).flatMap((methods) => Object.values(methods)).map((op) => (op as unknown as { operationId: string }).operationId)
    expect(listed.length).toBe(routes.length)
    expect(new Set(listed).size).toBe(listed.length)
  })

  it("declares the main routes with their schemas: body, path and query parameters, data in the envelope", () => {
    const create = operation("post", "/api/v1/transactions")
    const createBody = resolved(create.requestBody.content["application/json"].schema)
    expect(createBody.required).toEqual(expect.arrayContaining(["walletId", "type", "protocol", "intent"]))
    // an agent's manifest may ride in the body too; it is not required
    expect(Object.keys(createBody.properties)).toContain("manifest")
    expect(createBody.required).not.toContain("manifest")
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["201", "202", "200", "400", "401", "403", "404", "409", "429", "500", "default"]))
    expect(create.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(["query:waitMs"])
    const envelope = create.responses["201"].content["application/json"].schema
    expect(envelope.required).toEqual(["status", "errorCode", "failedAt", "stage", "traceId", "data"])
    expect(resolved(envelope.properties.data).required).toEqual(expect.arrayContaining(["id", "walletId", "status", "history"]))
    // A failed transaction answers its record in a failure envelope (403 policy, 500 pipeline).
    expect(create.responses["403"].content["application/json"].schema.properties.data.anyOf).toHaveLength(2)

    const get = operation("get", "/api/v1/wallets/{walletId}")
    expect(get.parameters).toEqual([{ name: "walletId", in: "path", required: true, schema: { $ref: "#/components/schemas/Uuid" } }])
    expect(resolved(get.responses["200"].content["application/json"].schema.properties.data).required).toEqual(
      expect.arrayContaining(["id", "publicKey", "provider", "status", "createdAt"])
    )
    for (const [method, path] of [
      ["post", "/api/v1/wallets"], ["get", "/api/v1/wallets"], ["get", "/api/v1/transactions/{txId}"], ["post", "/api/v1/transactions/{txId}/approve"],
      ["post", "/api/v1/transactions/{txId}/reject"], ["post", "/api/v1/transactions/{txId}/retry"], ["get", "/api/v1/transactions/{txId}/proof"],
      ["get", "/api/v1/transactions/{txId}/replay"], ["get", "/api/v1/wallets/{walletId}/transactions"], ["get", "/api/v1/wallets/{walletId}/pending-approvals"],
      ["post", "/api/v1/policies"], ["get", "/api/v1/policies/{policyId}"], ["post", "/api/v1/agents"], ["get", "/api/v1/agents/{agentId}"],
      ["get", "/api/v1/audit/events"], ["get", "/health"]
    ] as const) {
      const data = operation(method, path).responses["200"] ?? operation(method, path).responses["201"] ?? operation(method, path).responses["202"]
      expect(data.content["application/json"].schema.properties.data, `${method} ${path}`).not.toEqual({ description: "Not declared yet: any JSON" })
    }
  })

  it("names each operation's scope as its security requirement; health and the document need no key", () => {
    expect(document.components).toMatchObject({ securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } } })
    expect(operation("get", "/api/v1/wallets/{walletId}")).toMatchObject({ security: [{ apiKey: ["wallets"] }], "x-scope": "wallets" })
    expect(operation("post", "/api/v1/transactions")).toMatchObject({ security: [{ apiKey: ["transactions"] }], "x-access": "agent" })
    expect(operation("get", "/api/v1/audit/events")).toMatchObject({ security: [{ apiKey: ["audit"] }] })
    expect(operation("get", "/health")).toMatchObject({ security: [] })
    expect(operation("get", "/api/v1/openapi.json")).toMatchObject({ security: [] })
    expect(operation("get", "/health").responses["401"]).toBeUndefined()
  })

  it("has response schemas that compile and tell a right answer from a wrong one", () => {
    const checker = contractChecker(document)
    const traceId = "4b0b4c0e-7f3e-4a43-9b1e-2c54c2f1f0a1"
    const wallet = {
      id: "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f", publicKey: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", provider: "local-dev", status: "active",
      createdAt: "2026-01-01T00:00:00.000Z", keyProvenance: { backend: "encrypted-file", custody: "local", deterministicAddressing: false }
    }
    const success = { status: "success", errorCode: null, failedAt: null, stage: "completed", traceId, data: wallet }
    expect(checker.problems("GET", `/api/v1/wallets/${wallet.id}`, 200, success)).toBeUndefined()
    expect(checker.problems("GET", `/api/v1/wallets/${wallet.id}`, 200, { ...success, data: { ...wallet, secretKey: "x" } })).toMatch(/additional properties/)
    expect(checker.problems("GET", `/api/v1/wallets/${wallet.id}`, 200, { ...success, data: { ...wallet, status: "gone" } })).toMatch(/status/)
    const notFound = { status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation", stage: "validation", traceId, data: null, error: "wallet not found", errorMessage: "wallet not found" }
    expect(checker.problems("GET", `/api/v1/wallets/${wallet.id}`, 404, notFound)).toBeUndefined()
    expect(checker.problems("GET", `/api/v1/wallets/${wallet.id}`, 404, { ...notFound, errorCode: "NOPE" })).toMatch(/errorCode/)
    // Every response schema of every operation compiles (a broken $ref would throw here).
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const status of Object.keys((op as { responses: object }).responses)) {
          const concrete = path.replace(/\{[^}]+\}/g, "x")
          expect(() => checker.problems(method, concrete, status === "default" ? 599 : Number(status), {})).not.toThrow()
        }
      }
    }
  })

  it("shows a route declared by method and path alone, with any JSON as data", () => {
    const plain = route("GET", "/api/v1/wallets/:walletId/things/:thingId", Effect.succeed(ok({ any: "thing" })))
    const only = openApiDocument([plain], { title: "t", version: "1" }) as unknown as OpenApiDocument
    const op = only.paths["/api/v1/wallets/{walletId}/things/{thingId}"]!.get as unknown as Record<string, any>
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(["walletId", "thingId"])
    expect(op.security).toEqual([{ apiKey: ["wallets"] }])
    expect(op.responses["200"].content["application/json"].schema.properties.data).toEqual({ description: "Not declared yet: any JSON" })
  })

  it("declares every route of the gateway: no operation is left as any JSON", () => {
    const undeclared = routes.filter((r) => r.endpoint === undefined).map((r) => `${r.method} ${r.path}`)
    expect(undeclared).toEqual([])
    const anyJson = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).filter(([, op]) => (op as unknown as { tags: Array<string> }).tags.includes("undeclared")).map(([method]) => `${method.toUpperCase()} ${path}`)
    )
    expect(anyJson).toEqual([])
    // The DeFi helpers answer declared data, inside the envelope.
    for (const [method, path] of [
      ["get", "/api/v1/defi/pools"], ["post", "/api/v1/defi/quote"], ["post", "/api/v1/defi/swap"], ["get", "/api/v1/defi/oracle/prices"],
      ["put", "/api/v1/defi/oracle/prices/{symbol}"], ["post", "/api/v1/defi/stake"], ["post", "/api/v1/defi/lend/supply"], ["post", "/api/v1/defi/lend/borrow"], ["post", "/api/v1/defi/unstake"], ["post", "/api/v1/defi/stake/rewards"],
      ["get", "/api/v1/wallets/{walletId}/escrows"], ["get", "/api/v1/wallets/{walletId}/positions"], ["get", "/api/v1/rpc/pool/status"], ["get", "/mcp/tools"]
    ] as const) {
      const success = operation(method, path).responses["200"].content["application/json"].schema
      expect(success.required, `${method} ${path}`).toContain("traceId")
      expect(resolved(success.properties.data), `${method} ${path}`).not.toEqual({ description: "Not declared yet: any JSON" })
    }
  })

  it("declares the body of every route that takes one: only the bodiless actions have none", () => {
    const bodiless = routes
      .filter((r) => r.method !== "GET" && r.method !== "DELETE" && r.endpoint?.raw === undefined && r.endpoint?.body === undefined)
      .map((r) => `${r.method} ${r.path}`)
    expect(bodiless.sort()).toEqual([
      "POST /api/v1/agents/:agentId/resume", "POST /api/v1/agents/:agentId/start",
      "POST /api/v1/agents/:agentId/stop", "POST /api/v1/transactions/:txId/retry",
      "POST /api/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver", "POST /api/v1/webhooks/:webhookId/rotate-secret"
    ])
    // The escrow helpers' bodies: the intent's fields and the signing wallet.
    const create = resolved(operation("post", "/api/v1/escrow/create").requestBody.content["application/json"].schema)
    expect(create.required).toEqual(expect.arrayContaining(["walletId", "counterparty", "amount"]))
    const resolve = resolved(operation("post", "/api/v1/escrow/{id}/resolve").requestBody.content["application/json"].schema)
    expect(resolve.required).toEqual(expect.arrayContaining(["walletId", "creator", "winnerIsCreator"]))
  })

  it("describes the answers outside the envelope by their media type: Prometheus text, MCP's JSON-RPC, the console's files", () => {
    const metrics = operation("get", "/metrics")
    expect(Object.keys(metrics.responses["200"].content)).toEqual(["text/plain; version=0.0.4; charset=utf-8"])
    expect(metrics.responses["200"].content["text/plain; version=0.0.4; charset=utf-8"].schema).toEqual({ type: "string" })
    // Refused before the handler (no key, a tenant-bound key): still the envelope.
    expect(metrics.responses["401"].content["application/json"].schema.required).toContain("errorCode")
    expect(metrics).toMatchObject({ security: [{ apiKey: [expect.any(String)] }], "x-access": "deployment" })
    const mcp = operation("post", "/mcp")
    expect(mcp.responses["200"].content["application/json"].schema).toMatchObject({ required: ["jsonrpc"] })
    expect(mcp.responses["202"].content).toBeUndefined()
    expect(operation("get", "/mcp").responses["405"].content["application/json"].schema).toMatchObject({ required: ["jsonrpc"] })
    expect(Object.keys(operation("get", "/console").responses["200"].content)).toEqual(["text/html; charset=utf-8"])
  })
})
