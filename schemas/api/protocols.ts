/** Protocol registry endpoints (spec: Endpoints, Protocols). */
import { ProtocolAdapter, ProtocolHealth, ProtocolHealthList, ProtocolList, ProtocolPathParams, ProtocolVersion } from "../protocol.js"
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
  })
}
