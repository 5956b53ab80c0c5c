/**
 * The stage stream's source: every transaction status transition is published here (after it is
 * written to SQL) for the WebSocket stream. A sliding buffer per subscriber means a slow subscriber
 * loses its oldest messages instead of ever blocking the pipeline.
 *
 * Several processes on one PostgreSQL (an API process beside worker processes): each process relays
 * its own events to the others with NOTIFY (batched, off the pipeline's path) and publishes theirs, so
 * a client sees every stage whichever process ran it. Each process also says every HEARTBEAT_EVERY that
 * it listens; one that has heard no other within PEER_TTL_MS (nor is in its first PEER_TTL_MS, before it
 * could have) relays nothing, so a lone service spends no statements on it.
 */
import { SqlClient } from "@effect/sql"
import { Chunk, Config, Effect, Layer, Option, PubSub, Queue, Schedule, Schema, Scope, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { type StageEvent, StageEventFeed } from "../gateway/stageEventFeed.js"
import { RECORD_COLUMNS, type StageColumnsRow, TransactionRecordRow, type TransactionRow } from "./transactionRow.js"
import { TransactionRepo } from "./transactionRepo.js"
import { logOutcome } from "./outcomeLog.js"
import { Notifications, Relistened } from "../db/notifications.js"

const CHANNEL = "stage_events"
/** Where a waiting request stops waiting: terminal, or waiting for a human (transactionWaits.ts). */
export const SETTLED_STATUSES: ReadonlySet<string> = new Set(["confirmed", "failed", "approval_gate"])
/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_000
/** Events waiting to be relayed at most; beyond, the oldest are dropped (never blocks the pipeline). */
const RELAY_BUFFER = 10_000
/** At most one relay statement per interval: a few large NOTIFYs cost far less than one per transition. */
const RELAY_EVERY = "50 millis"
/** How often a process says it is listening (an empty relay). */
const HEARTBEAT_EVERY = "2 seconds"
/** A process relays while another was heard this recently (several heartbeats), and in its own first as long. */
export const PEER_TTL_MS = 10_000

// The stream's message shape is the gateway's (it serves the stream); the pipeline publishes it.
export type { StageEvent }

/** The stage-stream message of a transaction row as it was just written. */
export const stageEventOf = (row: Omit<StageColumnsRow, "updated_at">, message?: string, at: string = new Date().toISOString()): StageEvent => ({
  type: "stage",
  txId: row.id,
  tenantId: row.tenant_id,
  walletId: row.wallet_id,
  agentId: row.agent_id,
  status: row.status,
  stage: row.stage,
  at,
  ...(message === undefined ? {} : { message }),
  ...(row.signature === null ? {} : { signature: row.signature }),
  ...(row.failed_at === null ? {} : { failedAt: row.failed_at }),
  ...(row.error_code === null ? {} : { errorCode: row.error_code })
})

/**
 * The message of the transition that just wrote `row`, at the time its history entry records: a client
 * that reads the history and also follows the stream (the CLI's watch) sees one transition in both and
 * can tell it is the same one.
 */
export const transitionEventOf = (row: Omit<StageColumnsRow, "updated_at"> & Pick<TransactionRow, "history">, message?: string): StageEvent => {
  const entry = row.history.at(-1)
  return stageEventOf(row, message, entry !== undefined && entry.status === row.status && entry.stage === row.stage ? entry.at : undefined)
}

/**
 * The row behind an event this process published when its transition settled the transaction: a
 * request waiting for it answers with that row (the statement's RETURNING, committed) instead of
 * reading it again. Keyed by the event object itself, so only that very event (delivered in process)
 * finds it.
 */
const rowsOfEvents = new WeakMap<StageEvent, TransactionRow>()

/**
 * The record columns a settled event relayed from another process carried (that process's committed
 * RETURNING): a request waiting here answers with them, without a read of its own.
 */
const recordsOfEvents = new WeakMap<StageEvent, TransactionRecordRow>()

/** `event`, remembered as published for `row` (the row as its transition wrote it). */
export const eventWithRow = (event: StageEvent, row: TransactionRow): StageEvent => {
  rowsOfEvents.set(event, row)
  return event
}

/** The whole row an in-process event was published for, if any. */
export const rowOfEvent = (event: StageEvent): TransactionRow | undefined => rowsOfEvents.get(event)

/** The record columns of the row behind an event: published in process, or carried by a relayed settled event. */
export const recordOfEvent = (event: StageEvent): TransactionRecordRow | undefined => rowsOfEvents.get(event) ?? recordsOfEvents.get(event)

const recordColumnsOf = (row: TransactionRecordRow): TransactionRecordRow =>
  Object.fromEntries(RECORD_COLUMNS.map((column) => [column, row[column]])) as unknown as TransactionRecordRow

/** The record columns a relayed event carries, as JSON renders them (timestamps as ISO text). */
const RelayedRecord = Schema.Struct({
  ...TransactionRecordRow.fields,
  created_at: Schema.Date,
  updated_at: Schema.Date,
  confirmed_at: Schema.NullOr(Schema.Date)
})
const decodeRelayedRecord = Schema.decodeUnknownOption(RelayedRecord)

/** Events of one process, as relayed to the others. */
const Relayed = Schema.parseJson(Schema.Struct({ origin: Schema.String, events: Schema.Array(Schema.Unknown) }))
const decodeRelayed = Schema.decodeUnknownOption(Relayed)

/** A relayed event's text: a settled one carries its record columns when they fit in a payload. */
const relayedText = (event: StageEvent): string => {
  const row = SETTLED_STATUSES.has(event.status) ? rowsOfEvents.get(event) : undefined
  if (row !== undefined) {
    const withRecord = JSON.stringify({ ...event, record: recordColumnsOf(row) })
    if (Buffer.byteLength(withRecord) + 100 <= MAX_PAYLOAD_BYTES) return withRecord
  }
  return JSON.stringify(event)
}

/** A relayed event as published here: the record it carried (if it is that transaction's, in that status) kept beside it. */
const receivedEvent = (relayed: unknown): StageEvent => {
  if (typeof relayed !== "object" || relayed === null) return relayed as StageEvent
  const { record, ...event } = relayed as StageEvent & { readonly record?: unknown }
  const carried = Option.getOrUndefined(decodeRelayedRecord(record))
  if (carried !== undefined && carried.id === event.txId && carried.status === event.status) recordsOfEvents.set(event, carried)
  return event
}

/** Payloads of at most MAX_PAYLOAD_BYTES, each `{ origin, events }`. */
const payloadsOf = (origin: string, events: ReadonlyArray<StageEvent>): Array<string> => {
  const payloads: Array<string> = []
  let current: Array<string> = []
  let size = 0
  const flush = () => {
    if (current.length > 0) payloads.push(`{"origin":${JSON.stringify(origin)},"events":[${current.join(",")}]}`)
    current = []
    size = 0
  }
  for (const event of events) {
    const text = relayedText(event)
    const bytes = Buffer.byteLength(text)
    if (bytes + 100 > MAX_PAYLOAD_BYTES) continue // cannot happen for a stage event; never break NOTIFY
    if (size + bytes + 100 > MAX_PAYLOAD_BYTES) flush()
    current.push(text)
    size += bytes + 1
  }
  flush()
  return payloads
}

export class StageEvents extends Effect.Service<StageEvents>()("StageEvents", {
  scoped: Effect.gen(function* () {
    const capacity = yield* Config.integer("STAGE_EVENT_BUFFER").pipe(
      Config.withDefault(4096),
      Config.validate({ message: "STAGE_EVENT_BUFFER must be a positive integer", validation: (n) => n > 0 }),
      Effect.orDie
    )
    const hub = yield* Effect.acquireRelease(PubSub.sliding<StageEvent>(capacity), PubSub.shutdown)
    // A gap: events lost to some subscriber. Other processes' events relayed while the LISTEN connection was being
    // replaced, or, when a subscriber fell a whole buffer behind (the hub full: publishing slid its oldest out), those.
    const gapHub = yield* Effect.acquireRelease(PubSub.sliding<void>(1), PubSub.shutdown)
    let wasFull = false
    const local = (event: StageEvent) =>
      PubSub.publish(hub, event).pipe(
        Effect.zipRight(PubSub.isFull(hub)),
        Effect.flatMap((full) => {
          const filled = full && !wasFull
          wasFull = full
          if (!full) return Effect.void
          const announce = PubSub.publish(gapHub, undefined)
          // Once per episode, for the operator: a stream client or the waits' dispatcher is that far behind.
          return filled ? Effect.zipRight(announce, Effect.logWarning(`stage events: a subscriber fell ${capacity} events behind (STAGE_EVENT_BUFFER) and lost the oldest; announced as a gap`)) : announce
        }),
        Effect.asVoid
      )
    /** A queue of every event from now on; it closes with the given scope. */
    const subscribe: Effect.Effect<Queue.Dequeue<StageEvent>, never, Scope.Scope> = PubSub.subscribe(hub)
    /** A queue that receives one item after each gap (for who must catch up by a read). */
    const subscribeGaps: Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope> = PubSub.subscribe(gapHub)
    const sql = yield* SqlClient.SqlClient
    const notifications = yield* Notifications
    const origin = randomUUID()

    const startedAt = Date.now()
    let peerHeardAt = 0
    let ownHeardAt = startedAt
    /**
     * Whether another process may need this one's events: one was heard lately, or this one has just started,
     * or it cannot tell (its own heartbeats stopped coming back: no LISTEN, or no NOTIFY, so relay anyway).
     */
    const relaying = () => {
      const now = Date.now()
      return now - peerHeardAt < PEER_TTL_MS || now - startedAt < PEER_TTL_MS || now - ownHeardAt >= PEER_TTL_MS
    }

    // Other processes' events: published here as they arrive (this process's own are skipped unparsed).
    const ownPrefix = `{"origin":${JSON.stringify(origin)},`
    yield* notifications.listen(CHANNEL).pipe(
      // Events relayed while the LISTEN connection was being replaced (Relistened) are lost to this process's
      // streams; the waiting requests read their rows then (transactionWaits.ts).
      Stream.runForEach((payload) => {
        if (payload === Relistened) return PubSub.publish(gapHub, undefined)
        if (payload.startsWith(ownPrefix)) {
          ownHeardAt = Date.now()
          return Effect.void
        }
        peerHeardAt = Date.now()
        const relayed = decodeRelayed(payload)
        if (relayed._tag === "None") return Effect.void
        return Effect.forEach(relayed.value.events, (event) => local(receivedEvent(event)), { discard: true })
      }),
      Effect.forkScoped
    )

    // This process's events for the others: everything queued since the last statement goes in one. The next
    // waits up to RELAY_EVERY, or goes at once when a transaction settled: another process may hold a request
    // waiting for exactly that (transactionWaits.ts), and its client's next transfer waits with it.
    const outgoing = yield* Queue.sliding<StageEvent>(RELAY_BUFFER)
    const settledQueued = yield* Queue.sliding<void>(1)
    yield* Effect.forever(
      Effect.gen(function* () {
        yield* Queue.takeAll(settledQueued)
        const events = Chunk.toReadonlyArray(yield* Queue.takeBetween(outgoing, 1, RELAY_BUFFER))
        yield* sql`SELECT pg_notify(${CHANNEL}, payload) FROM jsonb_array_elements_text(${JSON.stringify(payloadsOf(origin, events))}::jsonb) AS payload`.pipe(
          Effect.catchAll((error) => Effect.logWarning("stage events not relayed to other processes", String(error)))
        )
        yield* Effect.race(Effect.sleep(RELAY_EVERY), Queue.take(settledQueued))
      })
    ).pipe(Effect.forkScoped)

    const heartbeat = `{"origin":${JSON.stringify(origin)},"events":[]}`
    yield* sql`SELECT pg_notify(${CHANNEL}, ${heartbeat})`.pipe(
      Effect.catchAll((error) => Effect.logDebug("stage relay heartbeat not sent", String(error))),
      Effect.repeat(Schedule.spaced(HEARTBEAT_EVERY)),
      Effect.forkScoped
    )

    const relay = (event: StageEvent) =>
      Effect.zipRight(Queue.offer(outgoing, event), SETTLED_STATUSES.has(event.status) ? Queue.offer(settledQueued, undefined) : Effect.void)
    const publish = (event: StageEvent) =>
      Effect.zipRight(Effect.zipRight(logOutcome(event), local(event)), relaying() ? Effect.asVoid(relay(event)) : Effect.void)
    return { publish, subscribe, subscribeGaps }
  })
}) {}

/** The feed the gateway's stage stream subscribes to. */
export const StageEventFeedLive = Layer.effect(
  StageEventFeed,
  Effect.gen(function* () {
    const events = yield* StageEvents
    const repo = yield* TransactionRepo
    const currentEvents = (txIds: ReadonlyArray<string>) =>
      Effect.map(repo.stagesOf(txIds), (rows) => rows.map((row) => stageEventOf(row, "current state, read after a gap in the stream", row.updated_at.toISOString())))
    return { subscribe: events.subscribe, subscribeGaps: events.subscribeGaps, currentEvents }
  })
).pipe(Layer.provide(TransactionRepo.Default))
