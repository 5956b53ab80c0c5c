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

/**
 * Sent to every client after a gap: other processes' events relayed while this process's LISTEN connection
 * was being replaced were not heard, or a subscriber fell a whole buffer behind. The client's subscribed
 * transactions follow as stage events of their current state; for wallets, agents or everything, the client
 * reads what it follows.
 */
export interface StreamGap {
  readonly type: "gap"
  readonly at: string
  readonly reason: string
}

export class StageEventFeed extends Context.Tag("StageEventFeed")<
  StageEventFeed,
  {
    readonly subscribe: Effect.Effect<Queue.Dequeue<StageEvent>, never, Scope.Scope>
    /** A queue that receives one item after each gap (events lost to some subscriber). */
    readonly subscribeGaps: Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope>
    /** The current state of each transaction named that exists, as a stage event (its `at` the row's last change). */
    readonly currentEvents: (txIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StageEvent>>
  }
>() {}
