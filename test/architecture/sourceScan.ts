/**
 * What the architecture tests read from the sources, parsed with the TypeScript compiler (already a
 * dependency; its parser is exact for our relative ESM imports and template literals): the component
 * of a file (its first folder under src/), the components a file imports, and the tables its SQL names.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

export const ROOT = fileURLToPath(new URL("../..", import.meta.url))
export const SRC = path.join(ROOT, "src")
export const ACTORS = path.join(ROOT, "actors")
export const MIGRATIONS = path.join(SRC, "db", "migrations")

/** Every .ts file under `dir`, as paths relative to the repository root (forward slashes). */
export const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith(".ts") ? [path.relative(ROOT, full).split(path.sep).join("/")] : []
  })

/** src/<component>/...: the component; undefined for the composition root (src/app.ts, src/main.ts, ...) and outside src/. */
export const componentOf = (file: string): string | undefined => {
  const parts = file.split("/")
  return parts[0] === "src" && parts.length > 2 ? parts[1] : undefined
}

const parse = (file: string) => ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true)

/** The repository-relative files a file imports or re-exports (static and dynamic), relative specifiers only. */
export const importedFiles = (file: string): Array<string> => {
  const specifiers: Array<string> = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(parse(file))
  return specifiers
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), specifier)).split(path.sep).join("/"))
}

/** The text of every template literal of a file (interpolations replaced by a placeholder): where our SQL lives. */
const templateTexts = (file: string): Array<string> => {
  const texts: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text)
    else if (ts.isTemplateExpression(node)) texts.push([node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(" $x "))
    else if (ts.isStringLiteral(node)) texts.push(node.text)
    ts.forEachChild(node, visit)
  }
  visit(parse(file))
  return texts
}

// A table is touched where SQL names it after one of these words (SELECT ... FROM t, JOIN t, INSERT INTO t,
// UPDATE t, DELETE FROM t USING t, ALTER/CREATE TABLE t, REFERENCES t, TRUNCATE t, LOCK TABLE t), or in a FROM list.
const TABLE_AFTER = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE|REFERENCES|TRUNCATE|USING)\s+(?:ONLY\s+)?"?([a-z_][a-z0-9_]*)"?((?:\s+(?:AS\s+)?[a-z_][a-z0-9_]*)?(?:\s*,\s*"?[a-z_][a-z0-9_]*"?(?:\s+(?:AS\s+)?[a-z_][a-z0-9_]*)?)*)/gi
const LISTED = /,\s*"?([a-z_][a-z0-9_]*)"?/gi

/**
 * Names passed to the SQL client as identifiers (`sql("t")`, `sql.literal(cond ? "a" : "b")`,
 * `sql.unsafe("t")`): every string literal inside such a call's arguments.
 */
const identifierTexts = (file: string): Array<string> => {
  const texts: Array<string> = []
  const literalsIn = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text)
    ts.forEachChild(node, literalsIn)
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression
      const named = ts.isIdentifier(callee) ? callee.text === "sql" : ts.isPropertyAccessExpression(callee) && ["literal", "unsafe"].includes(callee.name.text)
      if (named) node.arguments.forEach(literalsIn)
    }
    ts.forEachChild(node, visit)
  }
  visit(parse(file))
  return texts
}

/** The tables (of `known`) that the SQL of a file names. */
export const tablesTouched = (file: string, known: ReadonlySet<string>): Set<string> => {
  const touched = new Set<string>()
  for (const name of identifierTexts(file)) if (known.has(name.trim())) touched.add(name.trim())
  for (const text of templateTexts(file)) {
    for (const match of text.matchAll(TABLE_AFTER)) {
      if (known.has(match[1]!)) touched.add(match[1]!)
      for (const listed of (match[2] ?? "").matchAll(LISTED)) if (known.has(listed[1]!)) touched.add(listed[1]!)
    }
  }
  return touched
}

/** The tables the migrations create. */
export const createdTables = (): Set<string> => {
  const tables = new Set<string>()
  for (const file of sourceFiles(MIGRATIONS)) {
    for (const text of templateTexts(file)) {
      for (const match of text.matchAll(/\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)"?/gi)) tables.add(match[1]!)
    }
  }
  return tables
}
