/**
 * What an agent does on one tick, as pure functions: which steps and rules are due (run count below
 * `maxRuns`, cooldown elapsed, a rule's conditions hold), whether an action is a paper trade, how many
 * actions the hour still allows, and the tick interval. The SQL claim (runState.ts) re-checks the run
 * count, cooldown and hourly cap atomically; this plan only says what to try, in which order.
 */
import { Schema } from "effect"
import type { Autonomy, AutonomyRule, AutonomyStep } from "../../../schemas/agent.js"
import { allConditionsHold, type TickMetrics } from "./conditions.js"

export const HOUR_MS = 3_600_000

/** Durable run state of one step or rule; times are epoch milliseconds of the actors' Clock. */
export interface RunState {
  readonly runs: number
  readonly lastRunAt: number | null
}

export const NEVER_RUN: RunState = { runs: 0, lastRunAt: null }

export interface RunLimits {
  readonly maxRuns: number
  readonly cooldownSeconds: number
}

export const ActionSource = Schema.Literal("step", "rule")
export type ActionSource = typeof ActionSource.Type

/** One action the tick wants to take. */
export interface PlannedAction {
  readonly source: ActionSource
  readonly sourceId: string
  readonly type: AutonomyStep["type"]
  readonly protocol: AutonomyStep["protocol"]
  /** Unfilled: may still hold template variables. */
  readonly intent: Readonly<Record<string, unknown>>
  readonly gasless: boolean
  /** Paper trade instead of execution: mode `paper`, or a step with `paperOnly`. */
  readonly paper: boolean
  readonly limits: RunLimits
}

/** Ticks are `cadenceSeconds` apart, never closer than AGENT_LOOP_INTERVAL_MS. */
export const tickIntervalMs = (cadenceSeconds: number, loopIntervalMs: number): number =>
  Math.max(cadenceSeconds * 1000, loopIntervalMs)

/** The earliest time (never before `nowMs`) the step or rule may run again; null once it reached maxRuns. */
export const nextEligibleAt = (limits: RunLimits, state: RunState, nowMs: number): number | null => {
  if (state.runs >= limits.maxRuns) return null
  if (state.lastRunAt === null) return nowMs
  return Math.max(nowMs, state.lastRunAt + limits.cooldownSeconds * 1000)
}

export const isEligible = (limits: RunLimits, state: RunState, nowMs: number): boolean => {
  if (state.runs >= limits.maxRuns) return false
  return state.lastRunAt === null || nowMs >= state.lastRunAt + limits.cooldownSeconds * 1000
}

/** Actions the hour still allows, given how many happened in the last hour. */
export const remainingThisHour = (maxActionsPerHour: number, actionsLastHour: number): number =>
  Math.max(0, maxActionsPerHour - actionsLastHour)

const stepAction = (step: AutonomyStep, paperMode: boolean): PlannedAction => ({
  source: "step",
  sourceId: step.id,
  type: step.type,
  protocol: step.protocol,
  intent: step.intent,
  gasless: step.gasless,
  paper: paperMode || step.paperOnly,
  limits: { maxRuns: step.maxRuns, cooldownSeconds: step.cooldownSeconds }
})

const ruleAction = (rule: AutonomyRule, paperMode: boolean): PlannedAction => ({
  source: "rule",
  sourceId: rule.id,
  type: rule.then.type,
  protocol: rule.then.protocol,
  intent: rule.then.intent,
  gasless: false,
  paper: paperMode,
  limits: { maxRuns: rule.maxRuns, cooldownSeconds: rule.cooldownSeconds }
})

export interface TickInputs {
  readonly autonomy: Autonomy
  readonly metrics: TickMetrics
  readonly steps: ReadonlyMap<string, RunState>
  readonly rules: ReadonlyMap<string, RunState>
  readonly actionsLastHour: number
  readonly nowMs: number
}

/**
 * The actions of one tick, in order: eligible steps in their listed order, then rules whose `when`
 * holds, cut to what `maxActionsPerHour` still allows. A disabled autonomy plans nothing.
 */
export const planTick = (inputs: TickInputs): ReadonlyArray<PlannedAction> => {
  const { autonomy } = inputs
  if (!autonomy.enabled) return []
  const paperMode = autonomy.mode === "paper"
  const steps = autonomy.steps
    .filter((step) => isEligible(step, inputs.steps.get(step.id) ?? NEVER_RUN, inputs.nowMs))
    .map((step) => stepAction(step, paperMode))
  const rules = autonomy.rules
    .filter((rule) => allConditionsHold(rule.when, inputs.metrics))
    .filter((rule) => isEligible(rule, inputs.rules.get(rule.id) ?? NEVER_RUN, inputs.nowMs))
    .map((rule) => ruleAction(rule, paperMode))
  return [...steps, ...rules].slice(0, remainingThisHour(autonomy.maxActionsPerHour, inputs.actionsLastHour))
}

/**
 * The transaction's idempotency key for one run: the same (agent, step or rule, run number) always
 * gives the same key, so re-sending a claimed run after a crash cannot create a second transaction.
 */
export const actionIdempotencyKey = (agentId: string, source: ActionSource, sourceId: string, run: number): string =>
  `agent:${agentId}:${source}:${sourceId}:run:${run}`
