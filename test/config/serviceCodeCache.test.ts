/**
 * The built service's code cache (src/serviceCodeCache.ts): what V8 compiled of the bundle after it ran, kept in
 * the compile cache's folder and given back to V8 at the next start, never for another bundle and never garbled.
 * The built service's use of it: test/e2e/productionBuild.test.ts.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { afterAll, describe, expect, it } from "vitest"
import { cacheFileName } from "../../src/serviceCodeCache.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "custody-code-cache-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A bundle whose functions run only when called (compiled lazily), answering `answer`. */
const bundleSource = (answer: string) =>
  [
    "'use strict'",
    ...Array.from({ length: 40 }, (_, i) => `function part${i}(x) { let s = 0; for (let j = 0; j < x; j++) s += j * ${i}; return s }`),
    `module.exports.answer = () => { let t = 0; ${Array.from({ length: 40 }, (_, i) => `t += part${i}(3);`).join(" ")} return "${answer}:" + t }`
  ].join("\n")

const setUp = (name: string, answer: string) => {
  const dir = path.join(root, name)
  const cacheDir = path.join(dir, "compile-cache")
  fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, "service.cjs")
  fs.writeFileSync(file, bundleSource(answer))
  return { file, cacheDir, cacheFile: path.join(cacheDir, cacheFileName(bundleSource(answer))) }
}

/** A start's script: compiles the bundle with the cache of a folder ("-": none), runs it, calls it, maybe writes. */
const startScript = path.join(root, "start.ts")
fs.writeFileSync(
  startScript,
  [
    `import { compileWithCodeCache } from ${JSON.stringify(path.resolve("src/serviceCodeCache.ts"))}`,
    "const [file, dir, write] = process.argv.slice(2)",
    'const compiled = compileWithCodeCache(file, dir === "-" ? undefined : dir)',
    "const answer = compiled.run().answer()",
    'if (write === "write") compiled.write()',
    "console.log(JSON.stringify({ status: compiled.status, answer }))"
  ].join("\n")
)

/**
 * A start, in a process of its own (V8 keeps what a process compiled and would answer a second compile of the
 * same text from memory, not from the cache): compiles `file` with the cache of `cacheDir`, runs it, calls it, and
 * writes the cache unless told not to. Its status and answer.
 */
const start = (file: string, cacheDir: string | undefined, options: { readonly write: boolean } = { write: true }) => {
  const output = execFileSync(process.execPath, ["--import", "tsx", startScript, file, cacheDir ?? "-", options.write ? "write" : "no"], { encoding: "utf8" })
  return JSON.parse(output) as { status: string; answer: string }
}

describe("the built service's code cache", () => {
  it("is written after the bundle ran, the service user's alone, and taken by V8 at the next start", () => {
    const { file, cacheDir, cacheFile } = setUp("next-start", "A")
    expect(start(file, cacheDir, { write: false })).toEqual({ status: "none", answer: "A:2340" })
    expect(fs.existsSync(cacheFile)).toBe(false)
    expect(start(file, cacheDir)).toEqual({ status: "none", answer: "A:2340" })
    expect((fs.statSync(cacheFile).mode & 0o777).toString(8)).toBe("600")
    expect(fs.readdirSync(cacheDir)).toEqual([path.basename(cacheFile)])
    expect(start(file, cacheDir)).toEqual({ status: "accepted", answer: "A:2340" })
  })

  it("never meets a rebuilt bundle of the same length (its cache is named by the text), and an old one is removed", () => {
    const { file, cacheDir, cacheFile } = setUp("rebuilt", "A")
    start(file, cacheDir)
    expect(fs.existsSync(cacheFile)).toBe(true)
    // same length, other code: V8's own check (the length) would take the old cache and run the old code
    fs.writeFileSync(file, bundleSource("B"))
    expect(bundleSource("B").length).toBe(bundleSource("A").length)
    expect(start(file, cacheDir)).toEqual({ status: "none", answer: "B:2340" })
    expect(fs.readdirSync(cacheDir)).toEqual([cacheFileName(bundleSource("B"))])
    expect(start(file, cacheDir)).toEqual({ status: "accepted", answer: "B:2340" })
  })

  it("is not given to V8 when garbled: the bundle compiles as without one and the next write makes it whole", () => {
    const { file, cacheDir, cacheFile } = setUp("garbled", "A")
    start(file, cacheDir)
    fs.writeFileSync(cacheFile, Buffer.alloc(fs.statSync(cacheFile).size, 0x5a))
    expect(start(file, cacheDir)).toEqual({ status: "damaged", answer: "A:2340" })
    expect(start(file, cacheDir)).toEqual({ status: "accepted", answer: "A:2340" })
  })

  it("compiles as without one when V8 refuses it (another Node.js's), and is written anew", () => {
    const { file, cacheDir, cacheFile } = setUp("refused", "A")
    start(file, cacheDir)
    // whole as a file (its check matches) but not V8's: what another V8 version's cache is to this one
    const data = Buffer.alloc(fs.statSync(cacheFile).size - 8, 0x11)
    const header = Buffer.alloc(8)
    fs.readFileSync(cacheFile).copy(header, 0, 0, 4)
    header.writeUInt32BE(zlib.crc32(data), 4)
    fs.writeFileSync(cacheFile, Buffer.concat([header, data]))
    expect(start(file, cacheDir)).toEqual({ status: "rejected", answer: "A:2340" })
    expect(start(file, cacheDir)).toEqual({ status: "accepted", answer: "A:2340" })
  })

  it("is neither read nor written without a folder", () => {
    const { file, cacheDir } = setUp("no-folder", "A")
    expect(start(file, undefined)).toEqual({ status: "none", answer: "A:2340" })
    expect(fs.readdirSync(cacheDir)).toEqual([])
  })
})
