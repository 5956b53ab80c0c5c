/**
 * What the stage stream (stream.ts) reads: the stage events of transactions as they happen, one
 * subscription (a sliding buffer) per connection. Declared here and provided by the pipeline, which
 * publishes them (pipeline/stageEvents.ts, StageEventFeedLive), so the gateway never imports the
 * pipeline that uses its routes.
 */
import { Context, type Effect, type Queue, type Scope } from "effect"

/** One message of the stream: a transaction's new status and stage. */
export interface StageEvent {
  readonly type: "stage"
  readonly txId: string
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly status: string
  readonly stage: string
  readonly at: string
  readonly message?: string
  readonly signature?: string
  readonly failedAt?: string
  readonly errorCode?: string
}

export class StageEventFeed extends Context.Tag("StageEventFeed")<
  StageEventFeed,
  { readonly subscribe: Effect.Effect<Queue.Dequeue<StageEvent>, never, Scope.Scope> }
>() {}
