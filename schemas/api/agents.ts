/** Agent endpoints (spec: Agents). */
import * as Schema from "effect/Schema"
import {
  Agent,
  AgentBudget,
  AgentCreated,
  AgentIdParams,
  AgentList,
  AutonomyState,
  CapabilityManifest,
  CreateAgentBody,
  ExecuteBody,
  IssueManifestBody,
  ManifestVerification,
  PauseBody,
  RevokeManifestBody,
  UpdateCapabilitiesBody,
  VerifyManifestBody
} from "../agent.js"
import { PaginationQuery, Timestamp, Uuid } from "../common.js"
import { endpoint } from "./endpoint.js"
import { CreateWaitQuery, TransactionRecord } from "./transactions.js"

export const ManifestRevocation = Schema.Struct({
  agentId: Uuid,
  nonce: Schema.String,
  revoked: Schema.Boolean,
  revokedAt: Timestamp,
  reason: Schema.String
})

/** Named, so the document lists it once as a component. */
const AgentResource = Agent.annotations({ identifier: "Agent" })

const transition = (action: "start" | "stop" | "pause" | "resume") =>
  endpoint("agents", "POST", `/api/v1/agents/:agentId/${action}`, {
    summary: `${action[0]!.toUpperCase()}${action.slice(1)} an agent`,
    params: AgentIdParams,
    ...(action === "pause" ? { body: PauseBody } : {}),
    success: AgentResource
  })

export const AgentsApi = {
  create: endpoint("agents", "POST", "/api/v1/agents", {
    summary: "Register an agent (and issue its API key, with `apiKey`; 200 for a create repeated with its idempotencyKey)",
    body: CreateAgentBody,
    success: AgentCreated.annotations({ identifier: "AgentCreated" }),
    successStatuses: [201, 200]
  }),
  list: endpoint("agents", "GET", "/api/v1/agents", { summary: "List agents, oldest first", query: PaginationQuery, success: AgentList }),
  get: endpoint("agents", "GET", "/api/v1/agents/:agentId", { summary: "An agent", params: AgentIdParams, success: AgentResource }),
  updateCapabilities: endpoint("agents", "PUT", "/api/v1/agents/:agentId/capabilities", {
    summary: "Change an agent's capabilities",
    params: AgentIdParams,
    body: UpdateCapabilitiesBody,
    success: AgentResource
  }),
  start: transition("start"),
  stop: transition("stop"),
  pause: transition("pause"),
  resume: transition("resume"),
  budget: endpoint("agents", "GET", "/api/v1/agents/:agentId/budget", { summary: "An agent's budget and today's spend", params: AgentIdParams, success: AgentBudget }),
  issueManifest: endpoint("agents", "POST", "/api/v1/agents/:agentId/manifest/issue", {
    summary: "Issue a signed capability manifest",
    params: AgentIdParams,
    body: IssueManifestBody,
    success: CapabilityManifest,
    successStatuses: [201]
  }),
  verifyManifest: endpoint("agents", "POST", "/api/v1/agents/:agentId/manifest/verify", {
    summary: "Verify a capability manifest",
    params: AgentIdParams,
    body: VerifyManifestBody,
    success: ManifestVerification
  }),
  autonomyState: endpoint("agents", "GET", "/api/v1/agents/:agentId/autonomy/state", {
    summary: "Where an agent's autonomy program stands",
    params: AgentIdParams,
    success: AutonomyState
  }),
  revokeManifest: endpoint("agents", "POST", "/api/v1/agents/:agentId/manifest/revoke", {
    summary: "Revoke a capability manifest by its nonce (or the manifest itself)",
    params: AgentIdParams,
    body: RevokeManifestBody,
    success: ManifestRevocation
  }),
  execute: endpoint("agents", "POST", "/api/v1/agents/:agentId/execute", {
    summary: "Execute an intent as the agent",
    params: AgentIdParams,
    query: CreateWaitQuery,
    body: ExecuteBody,
    success: TransactionRecord,
    successStatuses: [201, 202, 200],
    recordOnFailure: true
  })
}
