/**
 * Keeps the suite's calls typed (issue 22: "one way to call it, typed, not `any`"). The type checker does
 * most of it: `api()`'s data defaults to `unknown`, so reading `.body.data.x` without naming the answer does
 * not compile. This test forbids the ways back to `any` that the checker accepts: naming `any` as the
 * answer (`api<any>`, `Envelope<any>`, `ApiAnswer<any>`), casting answer data to `any`, or giving `api()`
 * / `Envelope` / `ApiAnswer` an `any` default again.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const TEST_DIR = fileURLToPath(new URL("..", import.meta.url))

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
  )

/** Each pattern is a way to read an answer as `any`. */
const UNTYPED = [
  /\b(api|call|Envelope|ApiAnswer)<\s*any\b/,
  /\.body(\.data)?\s+as\s+any\b/,
  /\.data\s+as\s+(any\b|Record<string,\s*any>)/,
  /<\s*D\s*=\s*any\s*>/
]

describe("the suite's calls to the service are typed", () => {
  it("api()'s and the process tests' call()'s answer data default to unknown, not any", () => {
    const service = fs.readFileSync(path.join(TEST_DIR, "support/service.ts"), "utf8")
    expect(service).toMatch(/export const api = async <D = unknown>\(/)
    expect(service).toMatch(/export interface Envelope<D = unknown>/)
    expect(service).toMatch(/export interface ApiAnswer<D = unknown>/)
    const processes = fs.readFileSync(path.join(TEST_DIR, "support/processes.ts"), "utf8")
    expect(processes).toMatch(/export const call = async <D = unknown>\(/)
    expect(processes).not.toMatch(/data: any/)
  })

  it("no test reads an answer as any", () => {
    const files = sources(TEST_DIR).filter((file) => !file.endsWith("typedCalls.test.ts"))
    expect(files.length).toBeGreaterThan(100)
    const found = files.flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (UNTYPED.some((pattern) => pattern.test(line)) ? [`${path.relative(TEST_DIR, file)}:${i + 1}: ${line.trim()}`] : []))
    )
    expect(found).toEqual([])
  })

  it("catches each untyped form it names (the patterns can fail)", () => {
    for (const line of ["api<any>(base, \"GET\", path)", "const x = answer.body.data as any", "answer.data as Record<string, any>", "export const api = async <D = any>("]) {
      expect(UNTYPED.some((pattern) => pattern.test(line)), line).toBe(true)
    }
    expect(UNTYPED.some((pattern) => pattern.test("api<WireDataOf<typeof AuditApi.list>>(base, \"GET\", path)"))).toBe(false)
  })
})
