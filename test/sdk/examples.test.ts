/**
 * The three programs of examples/ run as a user runs them (`npx tsx examples/<name>.ts`, CUSTODY_URL and
 * CUSTODY_API_KEY set) against a local service with the AMMs: each exits 0 having seen what it shows.
 */
import { spawn } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { PROJECT_ROOT } from "../support/processes.js"
import { ADMIN_KEY } from "../support/service.js"

const env = useServiceWithLedger({
  ledger: { amm: true },
  env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"], AGENT_SCHEDULER_ENABLED: "false" }
})

const runExample = (name: string) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), [`examples/${name}.ts`], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir(), CUSTODY_URL: env.service.baseUrl, CUSTODY_API_KEY: ADMIN_KEY },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    // "close", not "exit": exit can come before the pipes are read to their end.
    child.once("close", (code) => resolve({ code, output }))
  })

describe("examples/", () => {
  it("transfer-under-policy: the allowed payment confirms, the one over the limit is refused by policy", async () => {
    const { code, output } = await runExample("transfer-under-policy")
    expect(code, output).toBe(0)
    expect(output).toMatch(/^paid 0\.01 SOL: confirmed \(signature \w+\)$/m)
    expect(output).toMatch(/^0\.1 SOL: failed POLICY_VIOLATION: .*maxLamportsPerTx/m)
  }, 60_000)

  it("agent-with-budget: the first payment confirms and counts; the second is refused naming what remains", async () => {
    const { code, output } = await runExample("agent-with-budget")
    expect(code, output).toBe(0)
    expect(output).toMatch(/^first payment: confirmed; spent today 15000000 of 20000000$/m)
    expect(output).toMatch(/^second payment: POLICY_VIOLATION: .*5000000.*\(retry guidance: do-not-retry\)$/m)
  }, 60_000)

  it("swap-needing-approval: the swap waits at the gate, is approved, confirms, and the wallet holds USDC", async () => {
    const { code, output } = await runExample("swap-needing-approval")
    expect(code, output).toBe(0)
    expect(output).toMatch(/^swap: approval_gate /m)
    expect(output).toMatch(/^after approval: confirmed; the wallet holds [1-9]\d* USDC base units$/m)
  }, 90_000)
})
