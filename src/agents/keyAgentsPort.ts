/** The agents component's side of the keys component's port (keys/keyAgents.ts). */
import { Effect, Layer } from "effect"
import { KeyAgents } from "../keys/keyAgents.js"
import { AgentRepo } from "./agentRepo.js"

export const KeyAgentsLive = Layer.effect(
  KeyAgents,
  Effect.map(AgentRepo, (repo) => ({ exists: (tenantId: string, agentId: string) => Effect.map(repo.find(agentId, tenantId), (found) => found !== undefined) }))
)
