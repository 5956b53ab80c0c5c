/** Agent tools (spec: Tool interface, Agent; plus autonomy state and manifest revoke, which the gateway also serves). */
import { Schema } from "effect"
import { AgentId, Intent, JsonObject, ProtocolName, TransactionType } from "../args.js"
import { AnyFields, apiPath, omit, tool } from "../toolDefinition.js"

const byAgent = Schema.Struct({ agentId: AgentId })
const Strings = Schema.Array(Schema.String)
const ExecutionMode = Schema.String.annotations({ description: "execution mode, e.g. autonomous, supervised, paper" })

const agentAction = (name: string, action: string, description: string) =>
  tool({
    name,
    description,
    args: byAgent,
    readOnly: false,
    request: ({ agentId }) => ({ method: "POST", path: apiPath`/api/v1/agents/${agentId}/` + action })
  })

const agentRead = (name: string, suffix: string, description: string) =>
  tool({
    name,
    description,
    args: byAgent,
    readOnly: true,
    request: ({ agentId }) => ({ method: "GET", path: apiPath`/api/v1/agents/${agentId}` + suffix })
  })

export const agentTools = [
  tool({
    name: "agent.create",
    description: "Register an agent (name, executionMode, allowedIntents; optional walletId, allowedProtocols, budgetLamports, autonomy).",
    args: Schema.Struct({ name: Schema.String, executionMode: ExecutionMode, allowedIntents: Strings }, AnyFields),
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/agents", body: args })
  }),
  tool({
    name: "agent.list",
    description: "The agents this key can see.",
    args: Schema.Struct({}),
    readOnly: true,
    request: () => ({ method: "GET", path: "/api/v1/agents" })
  }),
  agentRead("agent.get", "", "Read one agent."),
  tool({
    name: "agent.capabilities_update",
    description: "Change an agent's allowed intents (and optionally executionMode, autonomy, budgetLamports, allowedProtocols). Operator act.",
    args: Schema.Struct({ agentId: AgentId, allowedIntents: Strings }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "PUT", path: apiPath`/api/v1/agents/${args.agentId}/capabilities`, body: omit(args, "agentId") })
  }),
  agentAction("agent.start", "start", "Start an agent."),
  agentAction("agent.stop", "stop", "Stop an agent."),
  agentAction("agent.resume", "resume", "Resume a paused agent."),
  agentRead("agent.budget", "/budget", "An agent's budget: total, spent, remaining lamports."),
  tool({
    name: "agent.pause",
    description: "Pause an agent, with an optional reason.",
    args: Schema.Struct({ agentId: AgentId, reason: Schema.optional(Schema.String) }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/pause`, body: omit(args, "agentId") })
  }),
  tool({
    name: "agent.manifest_issue",
    description: "Issue a signed capability manifest for an agent (allowedIntents, allowedProtocols, ttlSeconds?).",
    args: Schema.Struct({ agentId: AgentId, allowedIntents: Strings, allowedProtocols: Strings, ttlSeconds: Schema.optional(Schema.Number) }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/manifest/issue`, body: omit(args, "agentId") })
  }),
  tool({
    name: "agent.manifest_verify",
    description: "Verify a capability manifest for an agent: valid and reason.",
    args: Schema.Struct({ agentId: AgentId, manifest: JsonObject }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/manifest/verify`, body: omit(args, "agentId") })
  }),
  tool({
    name: "agent.execute",
    description: "Execute an intent as the agent: capability, manifest and budget checks, then the full pipeline with policy.",
    args: Schema.Struct({ agentId: AgentId, type: TransactionType, protocol: ProtocolName, intent: Intent, gasless: Schema.optional(Schema.Boolean) }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/execute`, body: omit(args, "agentId") })
  }),
  agentRead("agent.autonomy_state", "/autonomy/state", "An agent's autonomy state: ticks, step and rule runs, last error."),
  tool({
    name: "agent.manifest_revoke",
    description: "Revoke an agent's capability manifests.",
    args: Schema.Struct({ agentId: AgentId }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/agents/${args.agentId}/manifest/revoke`, body: omit(args, "agentId") })
  })
]
