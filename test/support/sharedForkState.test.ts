/**
 * vitest.config.ts runs the files of one fork with the modules it already loaded (isolate: false), so a
 * file that mocks a module, stubs a global or changes process.env would change the files after it. This
 * keeps those out of the test files (globalSetup runs in vitest's own process, not in a fork).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import config from "../../vitest.config.js"
import { ROOT, sourceFiles } from "../architecture/sourceScan.js"

/** vitest.config.ts's globalSetup files, which run in vitest's own process. */
const GLOBAL_SETUPS = new Set([config.test?.globalSetup ?? []].flat())

/** Each pattern changes state that the next file in the same fork would see. */
const SHARED_STATE_CHANGES = [
  /\bvi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers)\(/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /\bdelete\s+process\.env\b/,
  /\bObject\.assign\(\s*process\.env\b/
]

describe("test files leave the fork's shared state alone", () => {
  it("no test file mocks a module, stubs a global or timers, or writes process.env", () => {
    const files = sourceFiles(path.join(ROOT, "test")).filter((file) => !GLOBAL_SETUPS.has(file) && !file.endsWith("sharedForkState.test.ts"))
    expect(files.length).toBeGreaterThan(100)
    const offenders = files.flatMap((file) =>
      fs
        .readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, index) => (SHARED_STATE_CHANGES.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []))
    )
    expect(offenders).toEqual([])
  })

  it("finds each kind of change it forbids", () => {
    const samples = ['vi.mock("../x.js")', "vi.stubEnv('A', 'b')", "process.env.API_KEY = key", 'process.env["X"] = "1"', "delete process.env.X", "Object.assign(process.env, extra)"]
    for (const sample of samples) expect(SHARED_STATE_CHANGES.some((pattern) => pattern.test(sample)), sample).toBe(true)
    expect(SHARED_STATE_CHANGES.some((pattern) => pattern.test("if (process.env.CI === 'true') return"))).toBe(false)
  })
})
