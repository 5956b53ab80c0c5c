import { Effect, Layer, ManagedRuntime } from "effect"
import { protocolRoutes } from "../src/protocols/http.js"
import { ProtocolHealthCheckTest } from "../src/protocols/protocolRegistryTest.js"
import { evaluateRoute } from "../src/policy/http.js"
import { PolicyEngineTest } from "../src/policy/policyEngineTest.js"
import { call, serveRoutes } from "../test/support/routeServer.js"
const a = ManagedRuntime.make(serveRoutes([evaluateRoute]).pipe(Layer.provide(PolicyEngineTest(() => ({ decision: "allow", reasons: [], riskTier: "low" })))))
console.log((await a.runPromise(call("POST", "/api/v1/evaluate", { walletId: "6f1f7e4c-3f0e-4b8a-9a57-1c2d3e4f5a6b", type: "transfer_sol", protocol: "system-program" }))).status)
await a.dispose()
const b = ManagedRuntime.make(serveRoutes(protocolRoutes).pipe(Layer.provide(ProtocolHealthCheckTest)))
console.log((await b.runPromise(call("GET", "/api/v1/protocols"))).status)
await b.dispose()
