// Starts the ledger as a child process (dist/ledger.js when this process runs the build or `built` says so,
// else its source through the tsx loader: src/entryPoints.ts) and resolves once it answers getHealth. The child watches
// its IPC channel and exits with its parent.
import { spawn, type ChildProcess } from "node:child_process"
import { resolve } from "node:path"
import { nodeArgumentsFor, PROJECT_ROOT } from "../entryPoints.js"

export interface SpawnedLedger {
  readonly rpcUrl: string
  readonly wsUrl: string
  readonly pid: number
  stop(): Promise<void>
}

const READY_TIMEOUT_MS = 30_000
const HEALTHY_TIMEOUT_MS = 10_000
const STOP_TIMEOUT_MS = 10_000

/** One getHealth call: "ok", or why not (a refused connection, a timeout, another answer). */
async function healthOf(rpcUrl: string, timeoutMs: number): Promise<string> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
      signal: AbortSignal.timeout(timeoutMs)
    })
    const body: unknown = await response.json()
    return typeof body === "object" && body !== null && "result" in body && body.result === "ok" ? "ok" : `it answered ${JSON.stringify(body)}`
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/**
 * Resolves once the ledger answers getHealth with "ok", asking again until `deadlineMs` has passed: its first
 * answer may take seconds on a loaded machine (a single one-second try failed a start under a busy test run).
 */
export async function waitUntilHealthy(rpcUrl: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    const left = deadline - Date.now()
    const health = await healthOf(rpcUrl, Math.max(100, Math.min(2_000, left)))
    if (health === "ok") return
    if (Date.now() >= deadline) throw new Error(`ledger on ${rpcUrl} does not answer getHealth within ${deadlineMs} ms (${health})`)
    await new Promise((resolveLater) => setTimeout(resolveLater, 100))
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit()
    else child.once("exit", () => resolveExit())
  })
}

export async function spawnLedger(opts: { port: number; dataDir: string; env?: Record<string, string>; built?: boolean }): Promise<SpawnedLedger> {
  const child = spawn(process.execPath, nodeArgumentsFor("ledger", opts.built), {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      LEDGER_PORT: String(opts.port),
      DATA_DIR: resolve(opts.dataDir),
      LEDGER_PARENT_PID: String(process.pid),
      ...opts.env
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  // The IPC channel exists so the child notices our death; it must not keep our event loop alive.
  child.unref()
  child.channel?.unref()
  const rpcUrl = `http://127.0.0.1:${opts.port}`
  const wsUrl = `ws://127.0.0.1:${opts.port + 1}`
  // Ready means: this child said so over IPC (not just "something answers on the port") and getHealth is ok.
  await new Promise<void>((resolveReady, rejectReady) => {
    let failure = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      rejectReady(new Error(`ledger did not become ready on ${rpcUrl} within ${READY_TIMEOUT_MS} ms`))
    }, READY_TIMEOUT_MS)
    child.once("exit", (code) => {
      clearTimeout(timer)
      rejectReady(new Error(`ledger exited with code ${String(code)} before it was ready${failure}`))
    })
    child.on("message", (message: unknown) => {
      if (typeof message !== "object" || message === null || !("type" in message)) return
      if (message.type === "failed" && "reason" in message) failure = `: ${String(message.reason)}`
      if (message.type === "ready") {
        clearTimeout(timer)
        resolveReady()
      }
    })
  })
  await waitUntilHealthy(rpcUrl, HEALTHY_TIMEOUT_MS).catch((error: unknown) => {
    child.kill("SIGKILL")
    throw error
  })

  const pid = child.pid
  if (pid === undefined) throw new Error("ledger child has no pid")
  return {
    rpcUrl,
    wsUrl,
    pid,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const done = exited(child)
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS)
      await done
      clearTimeout(timer)
    }
  }
}
