/** Agent tools (spec: Tool interface, Agent; plus autonomy state and manifest revoke, which the gateway also serves). */
import { Schema } from "effect"
import { EXECUTION_MODES } from "../../../schemas/agent.js"
import { AgentsApi } from "../../../schemas/api/agents.js"
import type { Endpoint } from "../../../schemas/api/endpoint.js"
import { AgentId, IdempotencyKeyArg, Intent, JsonObject, ProtocolName, TransactionType } from "../args.js"
import { AnyFields, apiPath, omit, tool } from "../toolDefinition.js"

const byAgent = Schema.Struct({ agentId: AgentId })
const Strings = Schema.Array(Schema.String)
const ExecutionMode = Schema.Literal(...EXECUTION_MODES).annotations({ description: "execution mode: autonomous (the default) or supervised; paper trading is autonomy.mode paper" })

/** Starting or resuming lets an agent spend on its own: destructive. */
const agentAction = (name: string, action: "start" | "stop" | "resume", description: string) =>
  tool({
    name,
    description,
    endpoint: AgentsApi[action],
    args: byAgent,
    readOnly: false,
    destructive: action !== "stop",
    request: ({ agentId }) => ({ method: "POST", path: apiPath`/api/v1/agents/${agentId}/` + action })
  })

const agentRead = (name: string, suffix: string, endpoint: Endpoint, description: string) =>
  tool({
    name,
    description,
    endpoint,
    args: byAgent,
    readOnly: true,
    request: ({ agentId }) => ({ method: "GET", path: apiPath`/api/v1/agents/${agentId}` + suffix })
  })

export const agentTools = [
  tool({
    name: "agent.create",
    description: "Register an agent (name; optional walletId (created when omitted), executionMode (default autonomous), allowedIntents (default transfer_sol, transfer_spl, query_balance), allowedProtocols, budgetLamports, autonomy).",
    endpoint: AgentsApi.create,
    args: Schema.Struct({ name: Schema.String, executionMode: Schema.optional(ExecutionMode), allowedIntents: Schema.optional(Strings), idempotencyKey: Schema.optional(IdempotencyKeyArg) }, AnyFields),
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/agents", body: args })
  }),
  tool({
    name: "agent.list",
    description: "The agents this key can see.",
    endpoint: AgentsApi.list,
    args: Schema.Struct({}),
    readOnly: true,
    request: () => ({ method: "GET", path: "/api/v1/agents" })
  }),
  agentRead("agent.get", "", AgentsApi.get, "Read one agent."),
  tool({
    name: "agent.capabilities_update",
    description: "Change an agent's allowed intents (and optionally executionMode, autonomy, budgetLamports, allowedProtocols). Operator act.",
    endpoint: AgentsApi.updateCapabilities,
    args: Schema.Struct({ agentId: AgentId, allowedIntents: Strings }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "PUT", path: apiPath`/api/v1/agents/${args.agentId}/capabilities`, body: omit(args, "agentId") })
  }),
  agentAction("agent.start", "start", "Start an agent."),
  agentAction("agent.stop", "stop", "Stop an agent."),
  agentAction("agent.resume", "resume", "Resume a paused agent."),
  agentRead("agent.budget", "/budget", AgentsApi.budget, "An agent's budget: total, spent, remaining lamports."),
  tool({
    name: "agent.pause",
    description: "Pause an agent, with an optional reason.",
    endpoint: AgentsApi.pause,
    args: Schema.Struct({ agentId: AgentId, reason: Schema.optional(Schema.String) }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/pause`, body: omit(args, "agentId") })
  }),
  tool({
    name: "agent.manifest_issue",
    description: "Issue a signed capability manifest for an agent (allowedIntents, allowedProtocols, ttlSeconds?).",
    endpoint: AgentsApi.issueManifest,
    args: Schema.Struct({ agentId: AgentId, allowedIntents: Strings, allowedProtocols: Strings, ttlSeconds: Schema.optional(Schema.Number) }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/manifest/issue`, body: omit(args, "agentId") })
  }),
  tool({
    name: "agent.manifest_verify",
    description: "Verify a capability manifest for an agent: valid and reason.",
    endpoint: AgentsApi.verifyManifest,
    args: Schema.Struct({ agentId: AgentId, manifest: JsonObject }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/manifest/verify`, body: omit(args, "agentId") })
  }),
  tool({
    name: "agent.execute",
    description: "Execute an intent as the agent: capability, manifest and budget checks, then the full pipeline with policy. Give an idempotencyKey (one per intended action) and use the same one if you call again after an error or a timeout: the first transaction is answered, nothing is done twice.",
    endpoint: AgentsApi.execute,
    args: Schema.Struct({
      agentId: AgentId, type: TransactionType, protocol: ProtocolName, intent: Schema.optional(Intent), gasless: Schema.optional(Schema.Boolean),
      idempotencyKey: Schema.optional(IdempotencyKeyArg)
    }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/execute`, body: omit(args, "agentId") })
  }),
  agentRead("agent.autonomy_state", "/autonomy/state", AgentsApi.autonomyState, "An agent's autonomy state: ticks, step and rule runs, last error."),
  tool({
    name: "agent.manifest_revoke",
    description: "Revoke an agent's capability manifests.",
    endpoint: AgentsApi.revokeManifest,
    args: Schema.Struct({ agentId: AgentId }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/manifest/revoke`, body: omit(args, "agentId") })
  })
]
