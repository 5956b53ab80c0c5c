/**
 * The in-memory hand-over of jobs claimed at their insert (src/pipeline/jobHandoff.ts): never more jobs promised
 * than idle workers, handed jobs taken oldest first, and a job that waited past its bound given back, not run.
 */
import { describe, expect, it } from "vitest"
import { makeJobHandoff } from "../../src/pipeline/jobHandoff.js"

const job = (leaseId: string) => ({ lease_id: leaseId, name: `job under ${leaseId}` })

describe("the job hand-over", () => {
  it("reserves at most one job per idle worker, counting reservations and jobs not yet taken", () => {
    let idle = 2
    const handoff = makeJobHandoff<ReturnType<typeof job>>(() => idle, 10_000)
    const a = handoff.reserve()
    const b = handoff.reserve()
    expect(a).toEqual(expect.any(String))
    expect(b).not.toBe(a)
    expect(handoff.reserve()).toBeUndefined()

    handoff.release(a!)
    const c = handoff.reserve()
    expect(c).toEqual(expect.any(String))
    // A handed job not yet taken still counts against the idle workers.
    handoff.handOver(job(b!))
    expect(handoff.reserve()).toBeUndefined()

    expect(handoff.take()).toEqual({ job: job(b!), stale: [] })
    expect(handoff.take()).toEqual({ job: undefined, stale: [] })
    idle = 0
    handoff.release(c!)
    expect(handoff.reserve()).toBeUndefined()
  })

  it("hands jobs over oldest first, and gives back those that waited too long", async () => {
    const handoff = makeJobHandoff<ReturnType<typeof job>>(() => 8, 30)
    const [a, b, c] = [handoff.reserve()!, handoff.reserve()!, handoff.reserve()!]
    handoff.handOver(job(a))
    handoff.handOver(job(b))
    await new Promise((resolve) => setTimeout(resolve, 50))
    handoff.handOver(job(c))

    expect(handoff.take()).toEqual({ job: job(c), stale: [job(a), job(b)] })
    expect(handoff.take()).toEqual({ job: undefined, stale: [] })
  })
})
