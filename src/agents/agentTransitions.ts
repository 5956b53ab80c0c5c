/**
 * The spec's Agent state table as data: which states each operator action leaves from and where it
 * goes. The automatic pause (delta guard or budget breach) is the `pause` row, applied by the system.
 */
import type { AgentStatus } from "../../schemas/agent.js"

export type AgentAction = "start" | "stop" | "pause" | "resume"

export interface AgentTransition {
  readonly from: ReadonlyArray<AgentStatus>
  readonly to: AgentStatus
  /** Audit event recorded when the transition happens. */
  readonly eventType: string
  /** Past tense, for the event's message. */
  readonly done: string
}

export const AGENT_TRANSITIONS: Readonly<Record<AgentAction, AgentTransition>> = {
  start: { from: ["stopped"], to: "running", eventType: "agent.started", done: "started" },
  stop: { from: ["running"], to: "stopped", eventType: "agent.stopped", done: "stopped" },
  pause: { from: ["running"], to: "paused", eventType: "agent.paused", done: "paused" },
  resume: { from: ["paused"], to: "running", eventType: "agent.resumed", done: "resumed" }
}

/** The 400 message for an action the current state does not allow. */
export const invalidTransitionMessage = (action: AgentAction, current: AgentStatus): string =>
  `cannot ${action} an agent that is ${current}: ${action} is allowed only from ${AGENT_TRANSITIONS[action].from.join(" or ")}`
