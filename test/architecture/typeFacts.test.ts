/**
 * A protocol adapter is one module (issue 33, item 1): every transaction type of the contract has its facts
 * in the registry (the compiler checks the record; this checks it at run time too, and that each type is
 * defined once), and the pipeline, the policy engine and the positions code hold no per-type tables: no
 * type name is compared with, listed, used as a key, or matched as a substring there. A type name
 * elsewhere in them (an instruction named like a type, a position kind, a label) is not a table and passes.
 * Nor do the pipeline and the policy engine name a protocol's program service: where our programs live, their
 * labels and instruction names come from the adapters through one service (src/protocols/protocolPrograms.ts).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { TransactionType } from "../../schemas/intent.js"
import { PROTOCOL_ADAPTERS, TYPE_FACTS, typeFactsOf } from "../../src/protocols/registry.js"
import { importedFiles, ROOT, SRC, sourceFiles } from "./sourceScan.js"

const TYPE_NAMES: ReadonlyArray<string> = Object.keys(TYPE_FACTS)
const READERS = ["pipeline", "policy", "positions"].map((component) => path.join(SRC, component))

/** Where a string literal decides by a type name: its line and the construct. */
const typeTables = (fileName: string, text: string): Array<string> => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const at = (node: ts.Node, what: string) =>
    found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what} ${node.getText()}`)
  const isTypeName = (node: ts.Node): node is ts.StringLiteral => ts.isStringLiteral(node) && TYPE_NAMES.includes(node.text)
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(node.operatorToken.kind)) {
      for (const side of [node.left, node.right]) if (isTypeName(side)) at(side, "compared:")
    } else if (ts.isCaseClause(node) && isTypeName(node.expression)) {
      at(node.expression, "case:")
    } else if (ts.isArrayLiteralExpression(node)) {
      for (const element of node.elements) if (isTypeName(element)) at(element, "listed:")
    } else if (ts.isPropertyAssignment(node) && (isTypeName(node.name) || (ts.isIdentifier(node.name) && TYPE_NAMES.includes(node.name.text)))) {
      at(node.name, "key:")
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && /type$/i.test(node.expression.expression.getText())) {
      // `type.includes("lend")`: a substring of type names stands for them
      for (const argument of node.arguments) {
        if (ts.isStringLiteral(argument) && TYPE_NAMES.some((name) => name.includes(argument.text))) at(argument, "matched:")
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("transaction type facts", () => {
  it("has the facts of every transaction type of the contract", () => {
    const missing = TransactionType.literals.filter((type) => typeFactsOf(type) === undefined)
    expect(missing).toEqual([])
    for (const type of TransactionType.literals) {
      const facts = typeFactsOf(type)!
      expect(facts.computeUnitBase, type).toBeGreaterThanOrEqual(100_000)
      expect(facts.computeUnitBase, type).toBeLessThanOrEqual(1_200_000)
      expect(["low", "medium", "critical"], type).toContain(facts.riskTier)
    }
  })

  it("has the facts of every adapter's capabilities and builders, each type defined by one adapter", () => {
    const defined = PROTOCOL_ADAPTERS.flatMap((adapter) => Object.keys(adapter.facts))
    expect(defined.filter((type, i) => defined.indexOf(type) !== i)).toEqual([])
    const named = PROTOCOL_ADAPTERS.flatMap((adapter) => [...adapter.capabilities, ...Object.keys(adapter.builders)])
    expect(named.filter((type) => typeFactsOf(type) === undefined)).toEqual([])
  })
})

describe("no per-type tables in the pipeline, the policy engine or the positions code", () => {
  it("sees a table (the check finds comparisons, lists, keys and substring matches of type names)", () => {
    const sample = [
      `if (row.type === "swap") {}`,
      `const S = new Set(["stake"])`,
      `const T = { lend_supply: 1 }`,
      `switch (t) { case "x402_pay": break }`,
      `input.type.includes("lend")`
    ].join("\n")
    expect(typeTables("sample.ts", sample)).toHaveLength(5)
  })

  it("finds none in src/pipeline, src/policy, src/positions", () => {
    const files = READERS.flatMap((dir) => sourceFiles(dir))
    expect(files.length).toBeGreaterThan(50)
    const tables = files.flatMap((file) => typeTables(file, fs.readFileSync(path.join(ROOT, file), "utf8")))
    expect(tables).toEqual([])
  })
})

/** A protocol's own service of where its program lives (src/protocols/<protocol>/program(s).ts, the oracle's bound). */
const isProgramService = (file: string) => /^src\/protocols\/[^/]+\/(programs?|oracleFreshness)\.ts$/.test(file.replace(/\.js$/, ".ts"))

describe("the pipeline and the policy engine read our programs through ProtocolPrograms only", () => {
  it("recognises a program service (the check can fail)", () => {
    expect(["src/protocols/escrow/program.js", "src/protocols/amm/programs.js", "src/protocols/oracle/oracleFreshness.js"].every(isProgramService)).toBe(true)
    expect(isProgramService("src/protocols/protocolPrograms.js")).toBe(false)
  })

  it("finds no import of a protocol's program service in src/pipeline or src/policy", () => {
    const files = ["pipeline", "policy"].flatMap((component) => sourceFiles(path.join(SRC, component)))
    const named = files.flatMap((file) => importedFiles(file).filter(isProgramService).map((imported) => `${file} -> ${imported}`))
    expect(named).toEqual([])
  })
})
