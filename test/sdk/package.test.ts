/**
 * The SDK as another project uses it (issue 32): packed by `npm pack` from sdk/ (built by `npm run sdk:build`,
 * as `npm test` does first), installed from the tarball into an empty project, imported by its package name
 * from plain JavaScript, and type-checked from TypeScript through its published declarations.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PROJECT_ROOT } from "../support/processes.js"

const SDK = path.join(PROJECT_ROOT, "sdk")
const project = fs.mkdtempSync(path.join(os.tmpdir(), "custody-sdk-user-"))
afterAll(() => fs.rmSync(project, { recursive: true, force: true }))

beforeAll(() => {
  // The build npm test runs first: here too, so this file also runs alone.
  execFileSync(path.join(PROJECT_ROOT, "node_modules/.bin/tsc"), ["-p", path.join(SDK, "tsconfig.json")], { stdio: "pipe" })
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", project], { cwd: SDK, encoding: "utf8" }).trim().split("\n").at(-1)!
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "sdk-user", version: "1.0.0", type: "module", private: true }))
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", path.join(project, tarball)], { cwd: project, stdio: "pipe" })
}, 120_000)

describe("the packed SDK", () => {
  it("holds the built code, its declarations and README, and no sources or tests", () => {
    const installed = path.join(project, "node_modules/@agent-custody/sdk")
    const files = fs.readdirSync(path.join(installed, "dist"))
    expect(files).toEqual(expect.arrayContaining(["index.js", "index.d.ts", "client.js", "generated.d.ts"]))
    expect(fs.existsSync(path.join(installed, "README.md"))).toBe(true)
    expect(fs.existsSync(path.join(installed, "src"))).toBe(false)
  })

  it("imports by its name from JavaScript", () => {
    const script = path.join(project, "use.mjs")
    fs.writeFileSync(
      script,
      `import { CustodyClient, CustodyError, retryGuidance } from "@agent-custody/sdk"
const custody = new CustodyClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k" })
console.log(typeof custody.transactions.createAndWait, typeof CustodyError, retryGuidance("CONFIRMATION_FAILED"))`
    )
    expect(execFileSync(process.execPath, [script], { cwd: project, encoding: "utf8" }).trim()).toBe("function function use-retry-endpoint")
  })

  it("type-checks a user's program through the published declarations, and refuses a wrong intent there too", () => {
    const file = path.join(project, "use.ts")
    fs.writeFileSync(
      file,
      `import { CustodyClient, type Transaction } from "@agent-custody/sdk"
const custody = new CustodyClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "k" })
const ok: Promise<Transaction> = custody.transactions.createAndWait({ walletId: "w", type: "transfer_sol", protocol: "system-program", intent: { destination: "d", lamports: 1 } })
void ok
void custody.transactions.create({ walletId: "w", type: "transfer_sol", protocol: "system-program", intent: { destination: "d", lamport: 1 } })
`
    )
    const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, types: [] })
    const messages = ts.getPreEmitDiagnostics(program).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatch(/TS2561: .*'lamport' does not exist/)
  })
})
