/**
 * Pooled connections that went quiet in the middle of a statement. A failover, a dropped NAT entry or a
 * partition can leave a socket that neither errors nor answers: the statement on it, and the request or
 * pipeline job waiting for it, would wait forever (PostgreSQL's statement_timeout cannot reach a client that
 * no longer hears it, and TCP notices nothing while a middlebox still acknowledges).
 *
 * A statement left unanswered for `checkAfterMs` is looked up from a new connection, in pg_stat_activity by its
 * backend's pid. A backend still running it ('active': a slow statement, a lock wait) is left alone, however
 * long it takes. A backend that is idle or gone, or a server that cannot be reached at all, means the answer
 * is never coming: the connection is closed, its statements fail as a lost connection (a read runs again, a
 * pipeline job is given back, connectionLoss.ts) and the pool opens a new one.
 */
import { Cause, Effect, Schedule } from "effect"
import pg from "pg"
import { isConnectionLoss } from "./connectionLoss.js"

/** node-postgres' fields read here; not in its types (pg 8: `_getActiveQuery`, `processID`, the socket). */
interface ClientInternals {
  readonly processID: number | null
  readonly _getActiveQuery: () => unknown
  readonly connection: { readonly stream: { readonly destroyed: boolean; destroy: () => void } }
}

type Lookup =
  | { readonly _tag: "States"; readonly states: ReadonlyMap<number, string> }
  /** No connection, or no answer in time: the pool's connections cannot be answered either. */
  | { readonly _tag: "Unreachable" }
  /** The server answered with an error of its own. */
  | { readonly _tag: "Unknown" }

interface Watched {
  readonly client: ClientInternals
  readonly createdAt: number
  /** The statement seen outstanding, and since when (to a sweep's precision). */
  seen: { readonly statement: unknown; since: number } | undefined
}

/**
 * The statement a connection waits on, if a plain one: a cursor (pg-cursor) between its reads waits on its
 * reader, not on the server, and is not watched.
 */
const outstandingStatement = (client: ClientInternals): pg.Query | undefined => {
  const statement = client._getActiveQuery()
  return statement instanceof pg.Query ? statement : undefined
}

/** Backend states that mean the statement is still being worked on. */
const WORKING = new Set(["active", "fastpath function call"])
/** The whole lookup (connect and statement) gives up after this: a server that cannot answer it cannot answer the pool. */
const LOOKUP_TIMEOUT_MS = 5_000

export class SilentConnectionWatch {
  private readonly watched = new Set<Watched>()
  /** Whether a connection's pid is its server backend's (not behind a pooler such as PgBouncer, which makes its own). */
  private pidsAreBackends = true

  constructor(
    private readonly checkAfterMs: number,
    /** A client for the lookup's own connection, with the pool's settings. */
    private readonly lookupClient: () => pg.Client
  ) {}

  /** `Base` whose connections this watch sees from their creation on. */
  watching(Base: typeof pg.Client): typeof pg.Client {
    const watched = this.watched
    return class extends Base {
      constructor(config?: string | pg.ClientConfig) {
        super(config)
        watched.add({ client: this as unknown as ClientInternals, createdAt: Date.now(), seen: undefined })
      }
    }
  }

  /**
   * Told the pid a connection reported and the one its server names (`pg_backend_pid()`): they differ
   * behind a connection pooler, where pg_stat_activity cannot tell on a connection, and then only a server
   * that cannot be reached at all closes connections.
   */
  notePids(reported: number | null, backend: number): Effect.Effect<void> {
    if (reported === backend || !this.pidsAreBackends) return Effect.void
    this.pidsAreBackends = false
    return Effect.logInfo("the database's connections are pooled (their pids are not their backends'): a quiet connection is closed only when the server cannot be reached")
  }

  /** Statements outstanding for checkAfterMs or longer; forgets closed connections. */
  private due(now: number): ReadonlyArray<Watched> {
    const due: Array<Watched> = []
    for (const entry of this.watched) {
      if (entry.client.connection.stream.destroyed) {
        this.watched.delete(entry)
        continue
      }
      const statement = outstandingStatement(entry.client)
      if (statement === undefined) entry.seen = undefined
      else if (entry.seen?.statement !== statement) entry.seen = { statement, since: now }
      else if (now - entry.seen.since >= this.checkAfterMs && entry.client.processID !== null) due.push(entry)
    }
    return due
  }

  /** The state of each pid's backend (absent: the backend is gone), looked up from a new connection. */
  private lookUp(pids: ReadonlyArray<number>): Effect.Effect<Lookup> {
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        const client = this.lookupClient()
        client.on("error", () => {})
        return client
      }),
      (client) =>
        Effect.tryPromise(async () => {
          await client.connect()
          const result = await client.query<{ pid: number; state: string | null }>(
            "SELECT pid, state FROM pg_stat_activity WHERE pid = ANY($1::int[])",
            [pids]
          )
          return new Map(result.rows.map((row) => [row.pid, row.state ?? ""]))
        }),
      (client) =>
        // Interruptible, or the timeout could not stop the wait (a release runs uninterruptibly).
        Effect.promise(() => client.end().catch(() => undefined)).pipe(
          Effect.interruptible,
          Effect.timeoutOption("1 second"),
          Effect.zipRight(Effect.sync(() => (client as unknown as ClientInternals).connection.stream.destroy()))
        )
    ).pipe(
      Effect.timeoutFail({ duration: LOOKUP_TIMEOUT_MS, onTimeout: () => "unreachable" as const }),
      Effect.map((states): Lookup => ({ _tag: "States", states })),
      Effect.catchAll((error) =>
        Effect.succeed<Lookup>({ _tag: error === "unreachable" || isConnectionLoss(Cause.fail(error)) ? "Unreachable" : "Unknown" })
      )
    )
  }

  /** One pass: looks up the statements outstanding too long and closes the connections whose answer is lost. */
  sweep(): Effect.Effect<void> {
    const due = this.due(Date.now())
    if (due.length === 0) return Effect.void
    return Effect.gen(this, function* () {
      const lookup = yield* this.lookUp(due.map((entry) => entry.client.processID!))
      // A server that answered with an error of its own (too many connections, say) is there: no verdict;
      // nor does pg_stat_activity give one behind a pooler.
      if (lookup._tag === "Unknown" || (lookup._tag === "States" && !this.pidsAreBackends)) return
      let silentSince = Number.POSITIVE_INFINITY
      for (const entry of due) {
        const state = lookup._tag === "States" ? lookup.states.get(entry.client.processID!) : undefined
        if (state !== undefined && WORKING.has(state)) {
          if (entry.seen !== undefined) entry.seen.since = Date.now()
          continue
        }
        // The answer may have arrived during the lookup.
        if (entry.seen === undefined || outstandingStatement(entry.client) !== entry.seen.statement) continue
        yield* Effect.logWarning("a database connection stopped answering mid-statement; closing it").pipe(
          Effect.annotateLogs({
            pid: entry.client.processID,
            backend: lookup._tag === "Unreachable" ? "unreachable" : state ?? "gone",
            waitedMs: Date.now() - entry.seen.since
          })
        )
        entry.client.connection.stream.destroy()
        this.watched.delete(entry)
        silentSince = Math.min(silentSince, entry.seen.since)
      }
      if (silentSince !== Number.POSITIVE_INFINITY) yield* this.closeQuietOlderThan(silentSince)
    })
  }

  /**
   * A lost answer means the way to the server broke, and connections made before it are likely as quiet,
   * only not used since: they are closed too (without a statement of their own they would each be found
   * only when used, one statement's wait at a time). A statement outstanding on one is left to its own
   * lookup; a connection made after the silence began was made on a working way.
   */
  private closeQuietOlderThan(silentSince: number): Effect.Effect<void> {
    return Effect.suspend(() => {
      let closed = 0
      for (const entry of this.watched) {
        if (entry.createdAt >= silentSince || outstandingStatement(entry.client) !== undefined) continue
        entry.client.connection.stream.destroy()
        this.watched.delete(entry)
        closed++
      }
      return closed === 0 ? Effect.void : Effect.logWarning(`closed ${closed} idle database connection(s) made before the lost answer`)
    })
  }

  /** Sweeps until interrupted (with the pool), a few times per checkAfterMs. */
  run(): Effect.Effect<never> {
    const every = Math.max(50, Math.min(1_000, Math.floor(this.checkAfterMs / 4)))
    return Effect.suspend(() => this.sweep()).pipe(Effect.repeat(Schedule.spaced(every)), Effect.zipRight(Effect.never))
  }
}
