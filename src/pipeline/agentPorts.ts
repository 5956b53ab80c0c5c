/**
 * What the pipeline asks of the agents component, declared here and provided by it
 * (agents/pipelinePorts.ts), so the pipeline never imports agents while agents submit their intents
 * to the pipeline: the agent checks on every spend path, the agent budget a retry reserves again,
 * the record of a portfolio breach, and the off-chain intents (treasury moves, paper trades) that
 * are agents' bookkeeping performed as a pipeline stage.
 */
import { Context, type Effect } from "effect"
import type { Forbidden, InsufficientScope, InvalidState, NotFound, PolicyViolation, ValidationError } from "../../schemas/errors.js"
import type { CallerInfo } from "../gateway/caller.js"
import type { AcceptedRequest } from "./acceptIntent.js"
import type { Terminal } from "./stageFailure.js"
import type { TransactionRow } from "./transactionRow.js"

export type ReserveOutcome =
  | { readonly _tag: "Reserved"; readonly reservationId: string; readonly spentLamportsToday: bigint; readonly budgetLamports: bigint | null }
  | { readonly _tag: "Exceeded"; readonly remainingLamports: bigint; readonly requiredLamports: bigint; readonly budgetLamports: bigint }

/** The spec's budget message, naming remaining and required lamports. */
export const budgetExceededMessage = (remaining: bigint, required: bigint) =>
  `agent budget exceeded: remaining ${remaining} lamports, required ${required} lamports`

/** Every path that spends from a wallet creates its transaction through this (agents/walletSpend.ts). */
export class WalletSpendGate extends Context.Tag("WalletSpendGate")<
  WalletSpendGate,
  {
    readonly create: (
      caller: CallerInfo,
      request: AcceptedRequest,
      manifest: unknown
    ) => Effect.Effect<{ row: TransactionRow; created: boolean }, InsufficientScope | ValidationError | NotFound | InvalidState | PolicyViolation | Forbidden>
  }
>() {}

/** A retried agent transaction spends again (agents/budgets.ts reserveAgain; undefined when nothing is reserved). */
export class AgentBudgetOnRetry extends Context.Tag("AgentBudgetOnRetry")<
  AgentBudgetOnRetry,
  { readonly reserveAgain: (agentId: string, txId: string, lamports: bigint, traceId?: string) => Effect.Effect<ReserveOutcome | undefined> }
>() {}

/** The chain said an agent transaction did not spend (it did not land, or failed on chain): its budget reservation is released (agents/budgets.ts). */
export class AgentBudgetRelease extends Context.Tag("AgentBudgetRelease")<
  AgentBudgetRelease,
  { readonly release: (txId: string, reason: string) => Effect.Effect<void> }
>() {}

/** A portfolio breach by an agent's spend, recorded for the supervisor (agents/agentBreaches.ts). */
export class AgentBreachReport extends Context.Tag("AgentBreachReport")<
  AgentBreachReport,
  { readonly portfolio: (input: { tenantId: string; agentId: string; reason: string; txId: string }) => Effect.Effect<string> }
>() {}

/** Off-chain intents (treasury_allocate, treasury_rebalance, paper_trade: move no value on chain): performed, their result stored on the row. */
export class OffChainIntents extends Context.Tag("OffChainIntents")<
  OffChainIntents,
  { readonly perform: (row: TransactionRow) => Effect.Effect<Record<string, unknown>, Terminal> }
>() {}
