/**
 * The idle memory reducer (src/observability/idleMemory.ts, actors/idleMemoryReducer.ts): when to collect
 * (after enough idle windows, once per idle period), that the collection shrinks V8's young generation,
 * and a service process that, left idle, gives memory back: its log says so and its resident memory falls.
 */
import v8 from "node:v8"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { afterWindow, BUSY_UTILIZATION, collectForIdle, IDLE_UTILIZATION, INITIAL_IDLE_STATE, type IdleState } from "../../src/observability/idleMemory.js"
import { type ServiceProcess, type SharedDeployment, startSharedDeployment } from "../support/processes.js"
import { residentMiB, serviceNodePid } from "../support/processTree.js"
import { waitFor } from "../support/wait.js"

const run = (utilizations: ReadonlyArray<number>, windowsNeeded: number) => {
  let state: IdleState = INITIAL_IDLE_STATE
  const collected: Array<number> = []
  utilizations.forEach((utilization, window) => {
    const next = afterWindow(state, utilization, windowsNeeded)
    state = next.state
    if (next.collect) collected.push(window)
  })
  return collected
}

describe("when the reducer collects", () => {
  const idle = IDLE_UTILIZATION / 5
  const busy = BUSY_UTILIZATION

  it("collects once the windows it needs were idle on average, once per idle period", () => {
    expect(run([idle, idle, idle, idle, idle, idle], 3)).toEqual([2])
  })

  it("lets one busier window of a background task pass within an idle period", () => {
    expect(run([idle, IDLE_UTILIZATION * 1.5, idle], 3)).toEqual([2])
    expect(run([IDLE_UTILIZATION * 2, IDLE_UTILIZATION * 2, idle], 3)).toEqual([])
  })

  it("collects again only after load, not after a background task's busier window", () => {
    expect(run([idle, idle, idle, IDLE_UTILIZATION * 1.5, idle, idle, idle, idle], 3)).toEqual([2])
    expect(run([idle, idle, idle, busy, idle, idle, idle, idle], 3)).toEqual([2, 6])
  })

  it("does not count a period with load in it as idle", () => {
    expect(run([busy, idle, idle, idle], 3)).toEqual([3])
  })
})

describe("the memory-reducing collection", () => {
  it("shrinks the young generation it grew to", async () => {
    const youngGeneration = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.physical_space_size ?? 0
    let garbage: Array<{ readonly n: number; readonly text: string }> = []
    for (let i = 0; i < 2_000_000; i++) garbage.push({ n: i, text: `item ${i}` })
    garbage = []
    const before = youngGeneration()
    const collected = await collectForIdle()
    expect(garbage).toHaveLength(0)
    expect(youngGeneration()).toBeLessThan(before / 2)
    expect(collected.pauseMs).toBeGreaterThanOrEqual(0)
    expect(collected.residentAfterMiB).toBeLessThanOrEqual(collected.residentBeforeMiB)
  })
})

describe("a service left idle", () => {
  let deployment: SharedDeployment
  let service: ServiceProcess

  beforeAll(async () => {
    deployment = await startSharedDeployment("custody-idle-")
    service = await deployment.startService({ IDLE_MEMORY_REDUCE_AFTER_MS: "2000" })
  }, 120_000)

  afterAll(async () => {
    await deployment?.close()
  })

  it("gives unused heap back once it has been idle, and says so", async () => {
    const said = () => {
      const output = service.output()
      const at = output.indexOf("idle: unused heap given back")
      return at === -1 ? undefined : output.slice(at, at + 400)
    }
    // Idle means the event loop was idle: while other test files load both cores, its timers run long, so
    // the quiet stretch the reducer needs may come only once they finish (a CI run once waited past 60 s).
    await waitFor("the reducer's log line", () => said() !== undefined, 150_000)
    // Its figures are the line's annotations (text or JSON logs: "name: value" or "name=value" or "name":value).
    const figure = (name: string) => Number(said()?.match(new RegExp(`${name}\\W+(\\d+)`))?.[1] ?? Number.NaN)
    // The start grows the young generation to its largest (the start script's semi-spaces): tens of MiB come back.
    expect(figure("residentBeforeMiB") - figure("residentAfterMiB")).toBeGreaterThanOrEqual(10)
    expect(residentMiB(serviceNodePid(service.pid))).toBeLessThan(figure("residentBeforeMiB"))
    // Once per idle period: still idle, no second collection.
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    expect(service.output().split("idle: unused heap given back").length - 1).toBe(1)
  }, 180_000)
})
