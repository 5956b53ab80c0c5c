/**
 * A ledger whose parent dies and whose output pipe closes with it (the parent killed, `npm start | head`)
 * stops on its own: it must neither spin on writes to the closed pipe nor outlive its parent.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { pickPort, tempDataDir } from "./helpers.js"

const projectRoot = path.resolve(import.meta.dirname, "../..")

describe("an orphaned ledger", () => {
  it("exits once its parent is gone, though its stdout pipe closed first", async () => {
    // The parent the ledger watches: a process this test kills.
    const parent = spawn("sleep", ["600"], { stdio: "ignore" })
    const ledger = spawn(path.join(projectRoot, "node_modules/.bin/tsx"), ["src/ledger/main.ts"], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? "", LEDGER_PORT: String(await pickPort()), DATA_DIR: tempDataDir(), LEDGER_PARENT_PID: String(parent.pid) },
      stdio: ["ignore", "pipe", "ignore"],
      detached: true
    })
    try {
      await new Promise<void>((resolve, reject) => {
        let text = ""
        ledger.stdout!.on("data", (chunk: Buffer) => {
          text += chunk.toString()
          if (text.includes("[ledger] ready")) resolve()
        })
        ledger.once("exit", (code) => reject(new Error(`the ledger exited before it was ready (${code}): ${text}`)))
      })
      // The reading end goes away first, then the parent: the ledger's goodbye line has nowhere to go.
      ledger.stdout!.destroy()
      parent.kill("SIGKILL")
      const exited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 15_000)
        ledger.once("exit", () => {
          clearTimeout(timer)
          resolve(true)
        })
      })
      expect(exited).toBe(true)
    } finally {
      parent.kill("SIGKILL")
      if (ledger.pid !== undefined && ledger.exitCode === null && ledger.signalCode === null) process.kill(-ledger.pid, "SIGKILL")
    }
  })
})
