/**
 * V8_MEMORY_SAVER (src/observability/memorySaver.ts): on where the Node.js version's V8 has the mode, and where it
 * does not, a service that starts anyway and says in one warning that the setting is ignored; on without a heap
 * growing percent, a warning that it then costs twice the CPU.
 */
import { execFileSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Config, ConfigProvider, Effect, Either } from "effect"
import { MEMORY_SAVER_NODE_MAJOR, memorySaverAsked, memorySaverOutcome } from "../../src/observability/memorySaver.js"
import { SERVICE_NODE, type ServiceProcess, type SharedDeployment, startSharedDeployment } from "../support/processes.js"

describe("what V8_MEMORY_SAVER does on a Node.js version", () => {
  it("does nothing unless asked", () => {
    expect(memorySaverOutcome(false, "24.22.3")._tag).toBe("Off")
    expect(memorySaverOutcome(false, "20.20.2")._tag).toBe("Off")
  })

  it("turns the mode on from Node.js 24", () => {
    expect(memorySaverOutcome(true, "24.22.3", ["--heap-growing-percent=50"])).toEqual({ _tag: "On" })
    expect(memorySaverOutcome(true, "25.1.0", ["--max-semi-space-size=16", "--heap_growing_percent=100"])).toEqual({ _tag: "On" })
  })

  it("turns it on but warns when node was started without a heap growing percent (the mode then costs twice the CPU)", () => {
    for (const flags of [[], ["--max-semi-space-size=16"], ["--heap-growing-percentage=50"]]) {
      const outcome = memorySaverOutcome(true, "24.22.3", flags)
      expect(outcome._tag).toBe("On")
      expect(outcome._tag === "On" ? outcome.warning : "").toContain("--heap-growing-percent=50")
    }
  })

  it("is read before the configuration (the entries set it first thing) as the configuration reads it", () => {
    // Effect's Config.boolean is the configuration's reading; a value it refuses stops the start, and reads as no here
    const configured = (value: string) =>
      Effect.runSync(Effect.either(Effect.withConfigProvider(Config.boolean("V8_MEMORY_SAVER"), ConfigProvider.fromMap(new Map([["V8_MEMORY_SAVER", value]])))))
    for (const value of ["true", "yes", "on", "1", "y", "false", "no", "off", "0", "n", "TRUE", "True", "2", "", " true", "enabled"]) {
      const read = configured(value)
      expect(memorySaverAsked({ V8_MEMORY_SAVER: value }), value).toBe(Either.isRight(read) && read.right)
    }
    expect(memorySaverAsked({})).toBe(false)
  })

  it("is ignored with a warning naming the setting and the version on older ones (their V8 has no such flag)", () => {
    for (const version of ["20.20.2", "22.23.5"]) {
      const outcome = memorySaverOutcome(true, version)
      expect(outcome._tag).toBe("Unsupported")
      expect(outcome._tag === "Unsupported" ? outcome.warning : "").toContain("V8_MEMORY_SAVER")
      expect(outcome._tag === "Unsupported" ? outcome.warning : "").toContain(version)
    }
  })
})

describe("a service started with V8_MEMORY_SAVER=true", () => {
  const nodeVersion = execFileSync(SERVICE_NODE, ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "")
  let deployment: SharedDeployment
  let service: ServiceProcess

  beforeAll(async () => {
    deployment = await startSharedDeployment("custody-saver-")
    // nodeArgs: the service runs on SERVICE_NODE itself (not through the tsx CLI), the version read above, with the
    // growing percent the mode wants (read from the process's own flags: no warning about it where the mode is on).
    service = await deployment.startService({ V8_MEMORY_SAVER: "true" }, { nodeArgs: ["--heap-growing-percent=50"] })
  }, 120_000)

  afterAll(async () => {
    await deployment?.close()
  })

  it("serves, and warns that the setting is ignored exactly where its Node.js cannot honour it", async () => {
    const health = await fetch(`${service.baseUrl}/health`)
    expect(health.status).toBe(200)
    const supported = Number.parseInt(nodeVersion, 10) >= MEMORY_SAVER_NODE_MAJOR
    expect(service.output().includes("V8_MEMORY_SAVER is ignored")).toBe(!supported)
    expect(service.output()).not.toContain("without --heap-growing-percent")
    // V8 itself was never handed a flag it does not know (it would print "unrecognized flag").
    expect(service.output()).not.toContain("unrecognized flag")
  }, 60_000)
})
