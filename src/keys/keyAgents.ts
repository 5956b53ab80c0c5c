/**
 * What the keys component asks of the agents component: whether an agent exists in a tenant (a key bound
 * to an agent must name one of its tenant's). A port, provided by src/agents/keyAgentsPort.ts, so the two
 * components do not import each other (the agents component issues an agent's key at create).
 */
import { Context, type Effect } from "effect"

export class KeyAgents extends Context.Tag("KeyAgents")<
  KeyAgents,
  { readonly exists: (tenantId: string, agentId: string) => Effect.Effect<boolean> }
>() {}
