/** Protocol registry endpoints (spec: Endpoints, Protocols). */
import { ProtocolAdapter, ProtocolHealth, ProtocolHealthList, ProtocolList, ProtocolPathParams, ProtocolVersion } from "../protocol.js"
import { MigratedIntent, MigrateIntentBody, ProtocolCompatibilityCheckBody, ProtocolCompatibilityResult } from "../intent.js"
import { endpoint } from "./endpoint.js"

export const ProtocolsApi = {
  list: endpoint("protocols", "GET", "/api/v1/protocols", { summary: "The protocol adapters", success: ProtocolList }),
  health: endpoint("protocols", "GET", "/api/v1/protocols/health", { summary: "Every protocol's health", success: ProtocolHealthList }),
  capabilities: endpoint("protocols", "GET", "/api/v1/protocols/:protocol/capabilities", {
    summary: "A protocol adapter's capabilities",
    params: ProtocolPathParams,
    success: ProtocolAdapter
  }),
  version: endpoint("protocols", "GET", "/api/v1/protocols/:protocol/version", {
    summary: "A protocol adapter's version",
    params: ProtocolPathParams,
    success: ProtocolVersion
  }),
  protocolHealth: endpoint("protocols", "GET", "/api/v1/protocols/:protocol/health", {
    summary: "A protocol's health",
    params: ProtocolPathParams,
    success: ProtocolHealth
  }),
  compatibilityCheck: endpoint("protocols", "POST", "/api/v1/protocols/:protocol/compatibility-check", {
    summary: "Whether an intent can run on the protocol adapter's current version",
    params: ProtocolPathParams,
    body: ProtocolCompatibilityCheckBody,
    success: ProtocolCompatibilityResult
  }),
  migrateIntent: endpoint("protocols", "POST", "/api/v1/protocols/:protocol/migrate-intent", {
    summary: "Rewrite an intent for another version of the protocol adapter",
    params: ProtocolPathParams,
    body: MigrateIntentBody,
    success: MigratedIntent
  })
}
