/**
 * This process's LISTEN connection, one for every channel (the outbox's and the webhook queue's wake-ups,
 * the stage events of other processes, issued API keys), kept by the supervised actor `pg-listener`.
 *
 * Why not @effect/sql-pg's `listen`: its connection is never replaced. When PostgreSQL restarts or fails
 * over, or a proxy cuts the connection, its streams stay open and hear nothing for the rest of the process.
 * Here a connection that errors, ends, or leaves a ping (every 5 s) unanswered for 5 s is dropped and a new
 * one LISTENs on every channel again (backoff 100 ms doubling to 5 s). LISTENs go one at a time:
 * node-postgres queues a query sent while another runs with a deprecation warning, and pg 9 refuses it.
 *
 * A NOTIFY sent while no connection listened is not heard: each stream says so with `Relistened` once every
 * channel is listened again, before anything the new connection heard, for users that must catch up (the key
 * ring reads every key, the queues' idle workers look for jobs, waiting requests read their rows).
 */
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Exit, Redacted, Schedule, type Scope, Stream } from "effect"
import pg from "pg"
import { superviseActor } from "../supervision/superviseActor.js"

/** The ping's text, so pg_stat_activity shows which connection is the listener even between LISTENs. */
export const LISTENER_PING = "SELECT 'LISTEN connection ping'"
const PING_EVERY = "5 seconds"
const STATEMENT_TIMEOUT = "5 seconds"

/** On a channel's stream after its channel was listened again on a new connection: NOTIFYs in between were lost. */
export const Relistened: unique symbol = Symbol("Relistened")
export type Notice = string | typeof Relistened

type Deliver = (notice: Notice) => void

/** The connection settings of the service's pool, for a connection of its own (same application_name). */
const connectionOf = (config: PgClient.PgClientConfig): pg.ClientConfig => ({
  ...(config.url === undefined ? {} : { connectionString: Redacted.value(config.url) }),
  host: config.host,
  port: config.port,
  database: config.database,
  user: config.username,
  ...(config.password === undefined ? {} : { password: Redacted.value(config.password) }),
  ssl: config.ssl,
  application_name: config.applicationName,
  // A failed-over address may not answer at all: give up and try again rather than wait for TCP's minutes.
  connectionTimeoutMillis: 5_000,
  keepAlive: true
})

export class Notifications extends Effect.Service<Notifications>()("Notifications", {
  scoped: Effect.gen(function* () {
    const config = (yield* PgClient.PgClient).config
    const channels = new Map<string, Set<Deliver>>()
    // Statements on the connection one at a time, and a channel's first subscriber against a reconnect.
    const lock = yield* Effect.makeSemaphore(1)
    let current: pg.Client | undefined
    let connectedBefore = false

    /**
     * A statement on the connection; one left unanswered (a connection gone quiet) fails after STATEMENT_TIMEOUT,
     * also where it runs in a release (an UNLISTEN): interruptible, or the timeout could not end the wait there.
     * A failed statement drops the connection (its socket destroyed: the actor opens a new one and LISTENs again),
     * so the statements queued behind it do not each wait out the timeout on it too (a stop after a silence
     * would wait 5 s per channel).
     */
    const run = (client: pg.Client, statement: string) =>
      Effect.tryPromise({ try: () => client.query(statement), catch: (cause) => new Error(`${statement}: ${String(cause)}`) }).pipe(
        Effect.interruptible,
        Effect.timeoutFail({ duration: STATEMENT_TIMEOUT, onTimeout: () => new Error(`${statement}: no answer within ${STATEMENT_TIMEOUT}`) }),
        Effect.tapError(() => Effect.sync(() => drop(client)))
      )

    const drop = (client: pg.Client) => {
      if (current === client) current = undefined
      client.connection.stream.destroy()
    }
    const listenOn = (client: pg.Client, channel: string) => run(client, `LISTEN ${pg.escapeIdentifier(channel)}`)

    const connect = Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const client = new pg.Client(connectionOf(config))
          // Until `lost` listens, an error must not be an unhandled 'error' event.
          client.on("error", () => {})
          await client.connect()
          return client
        },
        catch: (cause) => new Error(`could not open the LISTEN connection: ${String(cause)}`)
      }),
      // Ended politely, then its socket destroyed: a connection gone quiet never acknowledges the end.
      (client) =>
        Effect.sync(() => {
          if (current === client) current = undefined
        }).pipe(
          // Interruptible: a release runs uninterruptibly, and the timeout could not stop a wait for an end
          // that a quiet connection never acknowledges.
          Effect.zipRight(Effect.promise(() => client.end().catch(() => undefined)).pipe(Effect.interruptible, Effect.timeoutOption("1 second"))),
          Effect.zipRight(Effect.sync(() => client.connection.stream.destroy()))
        )
    )

    const deliverNotification = (message: pg.Notification) => {
      const subscribers = channels.get(message.channel)
      if (subscribers !== undefined) for (const deliver of subscribers) deliver(message.payload ?? "")
    }

    const listenerLife: Effect.Effect<never, Error, Scope.Scope> = Effect.gen(function* () {
      const client = yield* connect
      const lost = yield* Deferred.make<never, Error>()
      const loseWith = (error: Error) => Deferred.unsafeDone(lost, Exit.fail(error))
      client.on("error", (error) => loseWith(new Error(`LISTEN connection failed: ${error.message}`)))
      client.on("end", () => loseWith(new Error("LISTEN connection ended")))
      // A channel listened early in the loop below hears NOTIFYs while later ones still LISTEN: they are held
      // until every subscriber has heard Relistened, which must come before anything the new connection heard.
      let heldBack: Array<pg.Notification> | undefined = []
      const release = () => {
        const held = heldBack ?? []
        heldBack = undefined
        for (const message of held) deliverNotification(message)
      }
      client.on("notification", (message) => (heldBack === undefined ? deliverNotification(message) : heldBack.push(message)))
      yield* lock.withPermits(1)(
        Effect.gen(function* () {
          // Set first: a connection lost halfway through its LISTENs may have been heard on some channels.
          const relistened = connectedBefore
          connectedBefore = true
          for (const channel of channels.keys()) yield* listenOn(client, channel)
          current = client
          if (relistened) for (const subscribers of channels.values()) for (const deliver of subscribers) deliver(Relistened)
        }).pipe(Effect.ensuring(Effect.sync(release)))
      )
      const pings = lock.withPermits(1)(run(client, LISTENER_PING)).pipe(
        Effect.repeat(Schedule.spaced(PING_EVERY)),
        Effect.zipRight(Effect.never)
      )
      return yield* Effect.raceFirst(Deferred.await(lost), pings)
    })

    yield* superviseActor("pg-listener", () => Effect.scoped(listenerLife), { kind: "database", maxBackoff: "5 seconds" })

    /**
     * Every payload NOTIFYed on `channel` from now on, for as long as the stream runs, and `Relistened` after
     * a lost connection was replaced; it never fails.
     */
    const listen = (channel: string): Stream.Stream<Notice> =>
      Stream.asyncPush<Notice>((emit) =>
        Effect.acquireRelease(
          lock.withPermits(1)(
            Effect.gen(function* () {
              const deliver: Deliver = (notice) => void emit.single(notice)
              const subscribers = channels.get(channel)
              if (subscribers !== undefined) {
                subscribers.add(deliver)
                return deliver
              }
              channels.set(channel, new Set([deliver]))
              // On a failed LISTEN the connection is as good as lost: the ping or its error replaces it.
              if (current !== undefined) yield* Effect.ignore(listenOn(current, channel))
              return deliver
            })
          ),
          (deliver) =>
            lock.withPermits(1)(
              Effect.suspend(() => {
                const subscribers = channels.get(channel)
                subscribers?.delete(deliver)
                if (subscribers === undefined || subscribers.size > 0) return Effect.void
                channels.delete(channel)
                return current === undefined ? Effect.void : Effect.ignore(run(current, `UNLISTEN ${pg.escapeIdentifier(channel)}`))
              })
            )
        )
      )

    return { listen }
  })
}) {}
