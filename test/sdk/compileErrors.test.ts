/**
 * The SDK's intents are a discriminated union by type: a request with a wrong or misspelt intent field, or an
 * intent of another type, does not compile; a right one does. Checked with the TypeScript compiler on programs
 * written for the test (kept out of the repository's own typecheck, which must pass).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"
import { afterAll, describe, expect, it } from "vitest"

const SDK_ENTRY = path.resolve(import.meta.dirname, "../../sdk/src/index.js")
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-sdk-compile-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The diagnostics of one program that uses the SDK, as `TS<code> line <n>` (1-based lines of `body`). */
const diagnosticsOf = (body: string): Array<string> => {
  const file = path.join(dir, `program${Math.random().toString(36).slice(2)}.ts`)
  const header = `import { CustodyClient, type TransactionRequest } from ${JSON.stringify(SDK_ENTRY)}\nconst custody = new CustodyClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "k" })\n`
  fs.writeFileSync(file, header + body)
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"]
  })
  const source = program.getSourceFile(file)!
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => `TS${d.code} line ${source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 - 2}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`)
}

const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

describe("intents typed by type", () => {
  it("compiles a right transfer, swap, paper trade and agent order", () => {
    expect(
      diagnosticsOf(`
const transfer: TransactionRequest<"transfer_sol"> = { walletId: "w", type: "transfer_sol", protocol: "system-program", intent: { destination: "${DESTINATION}", lamports: 1_000_000 } }
void custody.transactions.createAndWait(transfer)
void custody.transactions.create({ walletId: "w", type: "swap", protocol: "amm-one", intent: { inputMint: "a", outputMint: "b", amount: "100", slippageBps: 50 } })
void custody.transactions.create({ walletId: "w", type: "paper_trade", protocol: "system-program", intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: "d", lamports: 1 } } })
void custody.agents.execute("a", { type: "query_balance", protocol: "system-program", intent: {} })
const any: TransactionRequest = transfer
void custody.transactions.create(any)
`)
    ).toEqual([])
  })

  it("refuses a misspelt intent field, a field of another type, a missing field, and an unknown request field", () => {
    const errors = diagnosticsOf(`
void custody.transactions.create({ walletId: "w", type: "transfer_sol", protocol: "system-program", intent: { destination: "d", lamport: 1 } })
void custody.transactions.create({ walletId: "w", type: "transfer_sol", protocol: "system-program", intent: { destination: "d", lamports: 1, slippageBps: 5 } })
void custody.transactions.create({ walletId: "w", type: "swap", protocol: "amm-one", intent: { inputMint: "a", outputMint: "b", amount: "1" } })
void custody.transactions.create({ walletId: "w", type: "transfer_sol", protocol: "system-program", requireAproval: true, intent: { destination: "d", lamports: 1 } })
void custody.transactions.create({ walletId: "w", type: "transfer_sol", protocol: "system-programme", intent: { destination: "d", lamports: 1 } })
void custody.transactions.create({ walletId: "w", type: "paper_trade", protocol: "system-program", intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: "d", lamprts: 1 } } })
`)
    const on = (line: number) => errors.filter((error) => error.includes(` line ${line}: `))
    expect(on(2).join()).toMatch(/TS2561 .*'lamport' does not exist .*Did you mean to write 'lamports'\?/)
    expect(on(3).join()).toMatch(/TS2353 .*'slippageBps' does not exist in type '\{ readonly destination: string; readonly lamports/)
    expect(on(4).join()).toMatch(/TS2741 .*'slippageBps' is missing/)
    expect(on(5).join()).toMatch(/TS2561 .*'requireAproval' does not exist .*Did you mean to write 'requireApproval'\?/)
    expect(on(6).join()).toMatch(/TS2820 .*"system-programme".*Did you mean '"system-program"'/)
    // A paper trade's inner intent is a union the compiler does not narrow by its type: refused, less precisely.
    expect(on(7).length).toBeGreaterThan(0)
    expect(errors.filter((error) => !/ line [2-7]: /.test(error))).toEqual([])
  })
})
