/**
 * The service's console writes a turn's log lines in one piece (src/observability/turnBufferedConsole.ts):
 * lines written together leave together and in order, and an exit (a failed start, a stop) loses none.
 */
import { spawn } from "node:child_process"
import { Console } from "node:console"
import * as path from "node:path"
import { setImmediate as nextTurn } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { turnBuffered } from "../../src/observability/turnBufferedConsole.js"

const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..")

describe("turn-buffered console", () => {
  it("writes the lines of one turn in one write, in order, and the next turn's in another", async () => {
    const writes: Array<string> = []
    const sink = turnBuffered({ write: (text: string | Uint8Array) => writes.push(String(text)) > 0 })
    const console = new Console({ stdout: sink.stream, stderr: sink.stream })
    console.log("transaction confirmed")
    console.group()
    console.log("txId: t1")
    console.groupEnd()
    console.log("second line")
    expect(writes).toEqual([])
    await nextTurn()
    expect(writes).toEqual(["transaction confirmed\n  txId: t1\nsecond line\n"])
    console.log("next turn")
    await nextTurn()
    expect(writes).toEqual(["transaction confirmed\n  txId: t1\nsecond line\n", "next turn\n"])
  })

  it("is the console Effect's loggers write through, and loses nothing when the process exits in the turn it logged", async () => {
    const script = path.join(import.meta.dirname, "fixtures/logsThenExits.ts")
    const child = spawn(path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), [script], { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    expect(code).toBe(3)
    const lines = stdout.split("\n").filter((line) => line !== "")
    expect(lines[0]).toBe("written past the console")
    expect(lines.slice(1).map((line) => /message="([^"]*)"/.exec(line)?.[1])).toEqual(Array.from({ length: 1000 }, (_, i) => `line ${i}`))
    expect(stderr).toContain("could not start")
  })
})
