/**
 * POST /evaluate in process over the policy engine's Test layer: no application, no database. What the
 * route itself does (refusing the engine-only fields, decoding the body, answering the engine's decision)
 * is checked here; the engine's decisions are checked by evaluate.test.ts and the HTTP tests.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { EvaluateRequest } from "../../schemas/policy.js"
import { evaluateRoute } from "../../src/policy/http.js"
import { PolicyEngineTest } from "../../src/policy/policyEngineTest.js"
import { call, serveRoutes } from "../support/routeServer.js"

const WALLET = "6f1f7e4c-3f0e-4b8a-9a57-1c2d3e4f5a6b"
const asked: Array<EvaluateRequest> = []
const engine = PolicyEngineTest((request) => {
  asked.push(request)
  return (request.amountLamports ?? 0n) > 1_000_000n
    ? { decision: "deny", reasons: ["spending_limit: above 1000000 lamports"], riskTier: "medium" }
    : { decision: "allow", reasons: [], riskTier: "low" }
})

const served = serveRoutes([evaluateRoute]).pipe(Layer.provide(engine))

describe("POST /evaluate over the policy engine's Test layer", () => {
  it.effect("answers the engine's decision for the decoded body", () =>
    Effect.gen(function* () {
      asked.length = 0
      const denied = yield* call("POST", "/api/v1/evaluate", { walletId: WALLET, type: "transfer_sol", protocol: "system-program", amountLamports: "2000000" })
      expect(denied.status).toBe(200)
      expect(denied.body.data).toEqual({ decision: "deny", reasons: ["spending_limit: above 1000000 lamports"], riskTier: "medium" })
      const allowed = yield* call("POST", "/api/v1/evaluate", { walletId: WALLET, type: "transfer_sol", protocol: "system-program", amountLamports: "5" })
      expect(allowed.body.data).toEqual({ decision: "allow", reasons: [], riskTier: "low" })
      expect(asked.map((request) => request.amountLamports)).toEqual([2_000_000n, 5n])
    }).pipe(Effect.provide(served))
  )

  it.effect("refuses an engine-only field without asking the engine", () =>
    Effect.gen(function* () {
      asked.length = 0
      const refused = yield* call("POST", "/api/v1/evaluate", { walletId: WALLET, type: "transfer_sol", protocol: "system-program", riskTierHint: "low" })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toBe("riskTierHint: set by the transaction engine only, not by a caller")
      expect(asked).toEqual([])
    }).pipe(Effect.provide(served))
  )
})
