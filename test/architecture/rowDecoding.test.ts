/**
 * Rows decoded at the repository edge (issue 33, item 3): under src/ and actors/, no statement is typed by a cast
 * (`sql<Row>` or `sql.unsafe<Row>`), every statement that returns rows (SELECT, WITH, RETURNING) has
 * them decoded by a Schema (`.pipe(decodeRows(table, Row))` or a `SqlSchema` query's `execute`) unless
 * its rows are not read at all (a statement run for its effect, or only counted), and no row type or
 * schema says `Date | string` (timestamptz arrives as a Date: src/db/rowDecoding.ts). The row schema given to
 * `decodeRows` is a constant, never built at the call (`Schema.Struct(...)`, `withPageKey(Row)`): Schema
 * memoizes a parser per schema object, so a schema built per call compiles its parser again on every call.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { MIGRATIONS, ROOT, SRC, sourceFiles } from "./sourceScan.js"

const migrations = path.relative(ROOT, MIGRATIONS).split(path.sep).join("/")
const files = [...sourceFiles(SRC), ...sourceFiles(path.join(ROOT, "actors"))].filter((file) => !file.startsWith(`${migrations}/`))

const isSql = (node: ts.Node) => ts.isIdentifier(node) && node.text === "sql"
const templateText = (template: ts.TemplateLiteral) =>
  ts.isNoSubstitutionTemplateLiteral(template) ? template.text : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)].join(" $x ")
const returnsRows = (text: string) => /^\s*(SELECT|WITH|VALUES)\b/i.test(text) || /\bRETURNING\b/i.test(text)

/** `.pipe(...)` calls made on `node`, innermost first, and the node the chain ends in. */
const pipedThrough = (node: ts.Node) => {
  const pipes: Array<ts.CallExpression> = []
  let current: ts.Node = node
  for (;;) {
    const parent = current.parent
    if (ts.isPropertyAccessExpression(parent) && parent.name.text === "pipe" && ts.isCallExpression(parent.parent)) {
      pipes.push(parent.parent)
      current = parent.parent
    } else if (ts.isParenthesizedExpression(parent) || ts.isYieldExpression(parent)) current = parent
    else return { pipes, end: parent }
  }
}

const calls = (argument: ts.Expression, name: string) =>
  ts.isCallExpression(argument) && argument.expression.getText().replace(/^Effect\./, "") === name

/** Whether the rows of a statement are decoded, or never read. */
const rowsDecodedOrUnread = (statement: ts.Node): boolean => {
  const { end, pipes } = pipedThrough(statement)
  const pipeArguments = pipes.flatMap((pipe) => [...pipe.arguments])
  if (pipeArguments.some((argument) => calls(argument, "decodeRows"))) return true
  // A SqlSchema query's execute: SqlSchema decodes its result.
  if (ts.isArrowFunction(end) && ts.isPropertyAssignment(end.parent) && end.parent.name.getText() === "execute") return true
  // Run for its effect: the result is dropped, or only the number of rows is kept.
  if (ts.isExpressionStatement(end)) return true
  const first = pipeArguments[0]
  if (first !== undefined && (ts.isPropertyAccessExpression(first) ? first.getText() === "Effect.asVoid" : calls(first, "as"))) return true
  return first !== undefined && calls(first, "map") && /^\(?(\w+)\)?\s*=>\s*\1\.length\b/.test((first as ts.CallExpression).arguments[0]?.getText() ?? "")
}

interface Finding {
  readonly file: string
  readonly line: number
  readonly problem: string
}

const findingsOf = (file: string, text = fs.readFileSync(path.join(ROOT, file), "utf8")): Array<Finding> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const findings: Array<Finding> = []
  const report = (node: ts.Node, problem: string) => findings.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, problem })
  const visit = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node) && isSql(node.tag)) {
      if (node.typeArguments !== undefined) report(node, "a row type cast on a statement (sql<Row>)")
      // A fragment inside another statement is decoded with that statement.
      else if (returnsRows(templateText(node.template)) && !ts.isTemplateSpan(node.parent) && !rowsDecodedOrUnread(node)) report(node, "rows read without decoding")
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && isSql(node.expression.expression) && node.expression.name.text === "unsafe") {
      if (node.typeArguments !== undefined) report(node, "a row type cast on a statement (sql.unsafe<Row>)")
    }
    if (ts.isUnionTypeNode(node)) {
      const members = node.types.map((type) => type.getText())
      if (members.includes("Date") && members.includes("string")) report(node, "a Date | string type")
    }
    if (ts.isCallExpression(node) && node.expression.getText() === "Schema.Union") {
      const members = node.arguments.map((argument) => argument.getText())
      if (members.includes("Schema.DateFromSelf") && members.includes("Schema.String")) report(node, "a Date | string type")
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return findings
}

const findings = files.flatMap((file) => findingsOf(file))

const unwrapped = (node: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(node) ? unwrapped(node.expression) : node)
const isDecodeRows = (callee: ts.Expression) =>
  (ts.isIdentifier(callee) && callee.text === "decodeRows") || (ts.isPropertyAccessExpression(callee) && callee.name.text === "decodeRows")

/** `decodeRows(table, row)` calls whose row schema is built at the call (a call expression) instead of being a constant. */
const rowSchemasBuiltPerCallOf = (file: string, text = fs.readFileSync(path.join(ROOT, file), "utf8")): Array<Finding> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const findings: Array<Finding> = []
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isDecodeRows(node.expression)) {
      const row = node.arguments[1] === undefined ? undefined : unwrapped(node.arguments[1])
      if (row !== undefined && ts.isCallExpression(row)) {
        findings.push({
          file,
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          problem: `a row schema built per call (${row.expression.getText()}(...)): make it a module-level constant`
        })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return findings
}

describe("row decoding", () => {
  it("sees the statements of the repositories (the scan finds what it must)", () => {
    const decodedIn = (file: string) => /decodeRows\(|SqlSchema\./.test(fs.readFileSync(path.join(ROOT, file), "utf8"))
    expect(files.filter(decodedIn).length).toBeGreaterThan(40)
    const sample = [
      "function* repository() {",
      "const a = yield* sql<{ id: string }>`SELECT id FROM wallets`",
      "const b = yield* sql`SELECT id FROM wallets`.pipe(Effect.orDie)",
      "const c = yield* sql`SELECT id FROM wallets`.pipe(decodeRows(\"wallets\", Row), Effect.orDie)",
      "yield* sql`SELECT pg_notify(${channel}, ${payload})`",
      "const d = yield* sql`UPDATE wallets SET label = ${label} WHERE id = ${id}`",
      "const e = yield* sql`DELETE FROM wallets WHERE id = ${id} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))",
      "}",
      "interface Row { readonly created_at: Date | string }",
      "const Timestamp = Schema.Union(Schema.DateFromSelf, Schema.String)"
    ].join("\n")
    expect(findingsOf("sample.ts", sample).map((finding) => `${finding.line} ${finding.problem}`)).toEqual([
      "2 a row type cast on a statement (sql<Row>)",
      "3 rows read without decoding",
      "9 a Date | string type",
      "10 a Date | string type"
    ])
  })

  it("decodes every row a statement returns, and casts none", () => {
    expect(findings.map((finding) => `${finding.file}:${finding.line} ${finding.problem}`)).toEqual([])
  })

  it("sees a row schema built at a decodeRows call (the scan finds what it must)", () => {
    const sample = [
      "const CountRow = Schema.Struct({ n: Schema.String })",
      "const PageRow = withPageKey(Row)",
      "const reads = (id: string) => Effect.gen(function* () {",
      "const a = yield* sql`SELECT id FROM wallets`.pipe(decodeRows(\"wallets\", Schema.Struct({ id: Schema.String })))",
      "const b = yield* sql`SELECT *, 1 AS page_key FROM wallets`.pipe(decodeRows(\"wallets\", withPageKey(Row)), Effect.orDie)",
      "const c = yield* sql`SELECT count(*)::text AS n FROM wallets`.pipe(decodeRows(\"wallets\", CountRow))",
      "const d = yield* sql`SELECT *, 1 AS page_key FROM wallets`.pipe(decodeRows(\"wallets\", PageRow))",
      "const e = yield* sql`SELECT id FROM wallets`.pipe(rowDecoding.decodeRows(\"wallets\", (Schema.Struct({ id: Schema.String }))))",
      "})"
    ].join("\n")
    expect(rowSchemasBuiltPerCallOf("sample.ts", sample).map((finding) => `${finding.line} ${finding.problem}`)).toEqual([
      "4 a row schema built per call (Schema.Struct(...)): make it a module-level constant",
      "5 a row schema built per call (withPageKey(...)): make it a module-level constant",
      "8 a row schema built per call (Schema.Struct(...)): make it a module-level constant"
    ])
  })

  it("gives decodeRows a constant row schema, so its parser is built once", () => {
    expect(files.flatMap((file) => rowSchemasBuiltPerCallOf(file)).map((finding) => `${finding.file}:${finding.line} ${finding.problem}`)).toEqual([])
  })
})
