/**
 * Jobs claimed at their enqueue. A create that finds one of this process's workers idle inserts its outbox job
 * already leased to this process (insertTransaction.ts) and hands it to the workers here, in memory: no claim
 * statement (an update of the job and of its transaction, a round trip) and no wait for one. The job is as
 * durable as any claimed job: if this process dies, its lease expires and any worker takes it.
 *
 * A reservation counts against the idle workers from before the insert until the job is handed over (or the
 * insert made none), so creates never promise more jobs than there are idle workers. A handed job waits at most
 * `maxWaitMs` for a worker (a worker woken for it may have claimed another job first): past that its lease may
 * lapse before the lease keeper's first renewal, so it is given back to the queue instead of run.
 */
import { randomUUID } from "node:crypto"

export interface JobHandoff<Job> {
  /** A lease id for the job of a create about to be inserted, or undefined when no worker here is free for it. */
  readonly reserve: () => string | undefined
  /** The insert made no job under this lease (refused, a conflict, failed): the reservation ends. */
  readonly release: (leaseId: string) => void
  /** The job inserted under a reservation (which it ends), for the next worker. */
  readonly handOver: (job: Job) => void
  /** The oldest handed job still fresh, and those that waited too long (to give back). */
  readonly take: () => { readonly job: Job | undefined; readonly stale: ReadonlyArray<Job> }
}

export const makeJobHandoff = <Job extends { readonly lease_id: string | null }>(idleWorkers: () => number, maxWaitMs: number): JobHandoff<Job> => {
  const reserved = new Set<string>()
  const handed: Array<{ readonly job: Job; readonly at: number }> = []

  const reserve = () => {
    if (idleWorkers() - reserved.size - handed.length <= 0) return undefined
    const leaseId = randomUUID()
    reserved.add(leaseId)
    return leaseId
  }

  const release = (leaseId: string) => {
    reserved.delete(leaseId)
  }

  const handOver = (job: Job) => {
    if (job.lease_id !== null) reserved.delete(job.lease_id)
    handed.push({ job, at: Date.now() })
  }

  const take = () => {
    const stale: Array<Job> = []
    const oldestFresh = Date.now() - maxWaitMs
    for (let next = handed.shift(); next !== undefined; next = handed.shift()) {
      if (next.at >= oldestFresh) return { job: next.job, stale }
      stale.push(next.job)
    }
    return { job: undefined, stale }
  }

  return { reserve, release, handOver, take }
}
