/**
 * The durable outbox: one PostgreSQL table of jobs (execute, retry, approve) with leases. A claim takes
 * the oldest pending job that is due, or a processing job whose lease expired (its worker died), with
 * FOR UPDATE SKIP LOCKED so any number of workers in any number of processes share the queue.
 * Workers are woken at once on enqueue: in process always, and across processes by NOTIFY. A create that
 * finds one of this process's workers idle enqueues its job already claimed and hands it over in memory
 * (jobHandoff.ts): a worker takes a handed job before it asks the table.
 */
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Schedule, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { newRowId } from "../db/rowIds.js"
import { AppConfig } from "../config.js"
import { isConnectionLoss } from "../db/connectionLoss.js"
import { makeDoorbell } from "../db/doorbell.js"
import { makeStatementBatch } from "../db/statementBatch.js"
import { OutboxDepth } from "../observability/queueDepth.js"
import { type RunContext, RunContextColumns, runContextOf } from "./runContext.js"
import { decodeRows, OneOf, Timestamp } from "../db/rowDecoding.js"
import { Notifications, Relistened } from "../db/notifications.js"
import { makeJobHandoff } from "./jobHandoff.js"

const OutboxAction = Schema.Literal("execute", "retry", "approve")
export type OutboxAction = typeof OutboxAction.Type

export const OutboxJob = Schema.Struct({
  id: Schema.String,
  tx_id: Schema.String,
  action: OneOf(OutboxAction),
  status: OneOf(Schema.Literal("pending", "processing", "done", "failed")),
  attempts: Schema.Number,
  lease_id: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})
export type OutboxJob = typeof OutboxJob.Type

/** A claimed job with its run's context; undefined when its transaction is gone. */
export interface ClaimedJob extends OutboxJob {
  readonly run: RunContext | undefined
  /** Claimed by its create's insert and handed over in memory (jobHandoff.ts), not by a claim of the table. */
  readonly claimedAtInsert?: boolean
}

const jobFields = {
  job_id: OutboxJob.fields.id,
  job_tx_id: OutboxJob.fields.tx_id,
  job_action: OutboxJob.fields.action,
  job_status: OutboxJob.fields.status,
  job_attempts: OutboxJob.fields.attempts,
  job_lease_id: OutboxJob.fields.lease_id,
  job_lease_expires_at: OutboxJob.fields.lease_expires_at,
  job_created_at: OutboxJob.fields.created_at
}
/** A claimed job with its transaction's run context, or with nulls where the transaction (or its wallet) is gone. */
const ClaimRow = Schema.Union(
  Schema.Struct({ ...jobFields, ...RunContextColumns.fields }),
  Schema.Struct({ ...jobFields, wallet_public_key: Schema.Null })
)
type ClaimRow = typeof ClaimRow.Type

const claimedJobOf = ({ job_id, job_tx_id, job_action, job_status, job_attempts, job_lease_id, job_lease_expires_at, job_created_at, ...tx }: ClaimRow): ClaimedJob => ({
  id: job_id, tx_id: job_tx_id, action: job_action, status: job_status, attempts: job_attempts,
  lease_id: job_lease_id, lease_expires_at: job_lease_expires_at, created_at: job_created_at,
  run: tx.wallet_public_key === null ? undefined : runContextOf(tx)
})

const JobIdRow = Schema.Struct({ id: Schema.String })

const JobStatusRow = Schema.Struct({ status: Schema.String })

/** How many jobs are in a status. */
const StatusCountRow = Schema.Struct({ status: Schema.String, n: Schema.String })

const CHANNEL = "outbox_jobs"

/**
 * What a run reads of its protocol's risk configs beside its transaction row (`row`: the statement's alias of it): the
 * tighter of the tenant's config and the deployment-wide one (tenant '*', issue 34), as the columns
 * `delta_variance_bps` and `max_quote_age_seconds` of RunContextColumns. `columns` goes in the select list, `joins`
 * after the FROM items; `onlyWhere` limits the joins to the rows that need them. Every statement that answers a run's
 * context (a claim, the settlement's read, a create's insert that claims its job) reads them so.
 */
export const riskBoundsOf = (sql: SqlClient.SqlClient, row: string, onlyWhere?: Statement.Fragment) => {
  const only = onlyWhere === undefined ? sql`` : sql`${onlyWhere} AND`
  return {
    columns: sql`least((r.config->>'deltaVarianceBpsThreshold')::int, (d.config->>'deltaVarianceBpsThreshold')::int) AS delta_variance_bps,
      least((r.config->>'maxQuoteAgeSeconds')::int, (d.config->>'maxQuoteAgeSeconds')::int) AS max_quote_age_seconds`,
    joins: sql`LEFT JOIN protocol_risk_configs r ON ${only} r.tenant_id = ${sql(row)}.tenant_id AND r.protocol = ${sql(row)}.protocol
      LEFT JOIN protocol_risk_configs d ON ${only} d.tenant_id = '*' AND d.protocol = ${sql(row)}.protocol`
  }
}

export class Outbox extends Effect.Service<Outbox>()("Outbox", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const notifications = yield* Notifications
    const config = yield* AppConfig
    const leaseMs = config.outbox.leaseMs
    // Each enqueue rings once (doorbell.ts); idle workers wait for a ring or the poll tick.
    const doorbell = yield* makeDoorbell(config.outbox.pollMs)
    // The claim's and the settlement's reads name their transaction rows `t`.
    const riskBounds = riskBoundsOf(sql, "t")

    // NOTIFY payloads are "<origin>:<new jobs>". This process's own enqueues already rang in process
    // (`notify`, after their commit): their NOTIFY, delivered back to this process too, is skipped, or
    // it would wake a second worker whose claim finds nothing.
    const origin = randomUUID()
    const ownPrefix = `${origin}:`
    yield* notifications.listen(CHANNEL).pipe(
      // A batch of creates sends one NOTIFY with the number of its jobs: wake as many workers. Jobs announced
      // while the LISTEN connection was being replaced (Relistened) were not heard: every worker looks once.
      Stream.runForEach((payload) =>
        payload === Relistened
          ? doorbell.ring(config.outbox.workers)
          : payload.startsWith(ownPrefix)
            ? Effect.void
            : doorbell.ringAnnounced(payload.slice(payload.lastIndexOf(":") + 1))
      ),
      Effect.forkScoped
    )

    /**
     * Inserts a job in the caller's SQL transaction (the unique index refuses a second open job). The
     * same statement queues the NOTIFY for other processes: PostgreSQL delivers it when the transaction
     * commits (never for a rollback), and it costs no round trip of its own.
     */
    const enqueueInTransaction = (txId: string, action: OutboxAction) =>
      sql`
        WITH job AS (
          INSERT INTO outbox_jobs (id, tx_id, action, status) VALUES (${newRowId()}, ${txId}, ${action}, 'pending') RETURNING id
        )
        SELECT pg_notify(${CHANNEL}, ${`${origin}:1`}) FROM job
      `.pipe(Effect.asVoid)

    /** Call after the SQL transaction that enqueued committed: wakes this process's workers (others got the NOTIFY). */
    const notify = doorbell.ring()

    /**
     * Gives back the jobs of a lease no worker runs: a claim whose answer was lost (PostgreSQL committed it,
     * then its connection went quiet or was cut), a job claimed at its enqueue whose insert's answer was lost,
     * or a handed job no worker took in time. They would wait out the lease. Their claim is not counted. Tried
     * for a few seconds; past that, the lease's expiry frees them as before.
     */
    const giveBack = (leaseId: string) =>
      sql`
        WITH returned AS (
          UPDATE outbox_jobs SET status = 'pending', attempts = attempts - 1, lease_id = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE lease_id = ${leaseId} AND status = 'processing'
          RETURNING tx_id
        )
        UPDATE transactions SET attempts = attempts - 1 WHERE id IN (SELECT tx_id FROM returned) RETURNING 1 AS returned
      `.pipe(
        Effect.map((rows) => rows.length),
        Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.upTo("5 seconds"))),
        Effect.flatMap((returned) => (returned > 0 ? doorbell.ring(returned) : Effect.void)),
        Effect.catchAllCause((cause) => Effect.logWarning("the jobs of a claim whose answer was lost could not be given back; their lease will free them", cause))
      )

    /**
     * Claims up to `count` due jobs, oldest first, under one lease id made here (a claim whose answer is
     * lost can then be given back); the transactions' attempt counters move too, and each job comes with its
     * run's context (the transaction as just updated).
     */
    const claimMany = (count: number) => {
      const leaseId = randomUUID()
      return sql`
        WITH claimed AS (
          UPDATE outbox_jobs SET status = 'processing', attempts = attempts + 1, lease_id = ${leaseId},
            lease_expires_at = now() + ${`${leaseMs} milliseconds`}::interval, updated_at = now()
          WHERE id IN (
            SELECT id FROM outbox_jobs
            WHERE (status = 'pending' AND available_at <= now()) OR (status = 'processing' AND lease_expires_at < now())
            ORDER BY created_at, id
            LIMIT ${count}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING *
        ), counted AS (
          UPDATE transactions SET attempts = attempts + 1 WHERE id IN (SELECT tx_id FROM claimed) RETURNING *
        )
        SELECT c.id AS job_id, c.tx_id AS job_tx_id, c.action AS job_action, c.status AS job_status, c.attempts AS job_attempts,
          c.lease_id AS job_lease_id, c.lease_expires_at AS job_lease_expires_at, c.created_at AS job_created_at,
          t.*, w.public_key AS wallet_public_key, ${riskBounds.columns}
        FROM claimed c
        LEFT JOIN counted t ON t.id = c.tx_id
        LEFT JOIN wallets w ON w.id = t.wallet_id
        ${riskBounds.joins}
        ORDER BY c.created_at, c.id
      `.pipe(
        Effect.onError((cause) => (isConnectionLoss(cause) ? giveBack(leaseId) : Effect.void)),
        decodeRows("outbox_jobs", ClaimRow),
        Effect.map((rows) => rows.map(claimedJobOf)),
        Effect.orDie
      )
    }

    // Idle workers that ask at the same time share one claim statement: each gets a job, or undefined.
    const claims = makeStatementBatch(
      (askers: ReadonlyArray<void>) => Effect.map(claimMany(askers.length), (jobs) => askers.map((_asker, i) => jobs[i])),
      { maxBatch: 64, repeatable: true }
    )

    // Jobs claimed at their enqueue (jobHandoff.ts). A handed job waits at most a third of the lease: the lease
    // keeper renews a run's lease a third of a lease after it starts.
    const handoff = makeJobHandoff<ClaimedJob>(doorbell.idleWorkers, Math.floor(leaseMs / 3))

    /** A lease id under which a create's insert claims its job for this process's workers, or undefined (none idle). */
    const reserveHandoff: Effect.Effect<string | undefined> = Effect.sync(handoff.reserve)

    /** The insert under `leaseId` made no job (or failed): the idle worker it counted on is free again. */
    const releaseHandoff = (leaseId: string) => Effect.sync(() => handoff.release(leaseId))

    /** The job an insert claimed under a reservation, for the next worker here (the insert's commit came first). */
    const handOver = (job: ClaimedJob) => Effect.zipRight(Effect.sync(() => handoff.handOver(job)), doorbell.ring())

    /** The oldest job handed over here, else the oldest due job of the table, for one worker; undefined when there is none. */
    const claim: Effect.Effect<ClaimedJob | undefined> = Effect.suspend(() => {
      const { job, stale } = handoff.take()
      const givenBack = stale.length === 0 ? Effect.void : Effect.forkDaemon(Effect.forEach(stale, (late) => giveBack(late.lease_id ?? ""), { discard: true }))
      return Effect.zipRight(givenBack, job === undefined ? claims.submit(undefined) : Effect.succeed(job))
    })

    /** Extends the leases of `jobs` in one statement; answers the ids still held (the others were lost: another worker took over). */
    const renewLeases = (jobs: ReadonlyArray<OutboxJob>) =>
      sql`
        UPDATE outbox_jobs o SET lease_expires_at = now() + ${`${leaseMs} milliseconds`}::interval
        FROM jsonb_to_recordset(${JSON.stringify(jobs.map((job) => ({ id: job.id, lease_id: job.lease_id })))}::jsonb) AS v(id uuid, lease_id uuid)
        WHERE o.id = v.id AND o.lease_id = v.lease_id AND o.status = 'processing'
        RETURNING o.id
      `.pipe(decodeRows("outbox_jobs", JobIdRow), Effect.map((rows) => new Set(rows.map((row) => row.id))))

    /**
     * The job as this worker holds it, or as its own earlier write of `statuses` left it: the lease let go
     * and no claim since (the same attempt count). A worker writes its job's end again when the first
     * write's answer was lost (it may have committed): the repeat must find its own write, not take the
     * job for another worker's (a job given up whose transaction is never failed).
     */
    const heldOrEndedBy = (job: OutboxJob, statuses: ReadonlyArray<string>) =>
      sql`id = ${job.id} AND (lease_id = ${job.lease_id} OR (lease_id IS NULL AND attempts = ${job.attempts} AND status IN ${sql.in(statuses)}))`

    /** Marks the job done; false when its lease was no longer this worker's (then nothing changes). */
    const complete = (job: OutboxJob) =>
      sql`
        UPDATE outbox_jobs SET status = 'done', lease_id = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE ${heldOrEndedBy(job, ["done"])}
        RETURNING id
      `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

    /** A retryable failure: back to pending after a backoff, or failed at the attempt limit; undefined when the job was no longer this worker's. */
    const release = (job: OutboxJob, error: string, backoffMs: number) =>
      sql`
        UPDATE outbox_jobs SET
          status = CASE WHEN attempts >= ${config.outbox.maxAttempts} THEN 'failed' ELSE 'pending' END,
          available_at = now() + ${`${backoffMs} milliseconds`}::interval,
          lease_id = NULL, lease_expires_at = NULL, last_error = ${error}, updated_at = now()
        WHERE ${heldOrEndedBy(job, ["pending", "failed"])}
        RETURNING status
      `.pipe(decodeRows("outbox_jobs", JobStatusRow), Effect.map((rows) => rows[0]?.status), Effect.orDie)

    const fail = (job: OutboxJob, error: string) =>
      sql`
        UPDATE outbox_jobs SET status = 'failed', lease_id = NULL, lease_expires_at = NULL, last_error = ${error}, updated_at = now()
        WHERE id = ${job.id} AND lease_id = ${job.lease_id}
      `.pipe(Effect.asVoid, Effect.orDie)

    /** Transactions matching `where` with their run's context (as a claim reads it), least recently updated first. */
    const contexts = (where: ReturnType<typeof sql.and>, limit: number) =>
      sql`
        SELECT t.*, w.public_key AS wallet_public_key, ${riskBounds.columns}
        FROM transactions t
        JOIN wallets w ON w.id = t.wallet_id
        ${riskBounds.joins}
        WHERE ${where}
        ORDER BY t.updated_at
        LIMIT ${limit}
      `.pipe(decodeRows("transactions", RunContextColumns), Effect.map((rows) => rows.map(runContextOf)), Effect.orDie)

    /**
     * Transactions left at `submitting` with no job running or due for them, least recently updated
     * first, each with its run's context: what the settlement resolver settles against the chain. They
     * are the ones marked unresolved (unresolvedTransactions.ts), and those whose job failed in the last
     * day (a process that died between failing the job and marking the transaction).
     */
    const unresolved = (limit: number) =>
      contexts(sql.and([
        sql`t.id IN (
          SELECT tx_id FROM unresolved_transactions
          UNION SELECT tx_id FROM outbox_jobs WHERE status = 'failed' AND updated_at > now() - interval '1 day'
        )`,
        sql`t.status = 'submitting'`,
        sql`NOT EXISTS (SELECT 1 FROM outbox_jobs j WHERE j.tx_id = t.id AND j.status IN ('pending', 'processing'))`
      ]), limit)

    /** The run context of one transaction in any state (a retry that adopts a landed signature needs it). */
    const contextOf = (txId: string) => Effect.map(contexts(sql.and([sql`t.id = ${txId}`]), 1), (rows) => rows[0])

    const stats = sql`SELECT status, count(*)::text AS n FROM outbox_jobs GROUP BY status`.pipe(
      decodeRows("outbox_jobs", StatusCountRow),
      Effect.map((rows) => {
        const counts = { pending: 0, processing: 0, failed: 0, done: 0 }
        for (const row of rows) counts[row.status as keyof typeof counts] = Number(row.n)
        return counts
      }),
      Effect.orDie
    )

    /** Rings the doorbell after a delay (a job given back with a backoff becomes due then). */
    const notifyLater = doorbell.ringAfter

    /** Waits for a ring: a new job, or the poll tick (at most pollMs away). */
    const waitForWork = doorbell.waitForWork

    /** The NOTIFY that wakes other processes' workers: its channel, and the prefix of this process's payloads. */
    const crossProcessNotify = { channel: CHANNEL, payloadPrefix: ownPrefix }

    return {
      enqueueInTransaction, crossProcessNotify, notify, notifyLater, claim, renewLeases, complete, release, fail, stats, waitForWork, leaseMs, unresolved, contextOf,
      reserveHandoff, releaseHandoff, handOver, giveBack
    }
  })
}) {}

/** The outbox's depth for /metrics (observability declares what it reads; the pipeline provides it). */
export const OutboxDepthLive = Layer.effect(OutboxDepth, Effect.map(Outbox, (outbox) => ({ byStatus: outbox.stats })))
