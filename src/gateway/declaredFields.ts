/**
 * The top-level field names an input schema declares (every member's, for a union): the query parameters a
 * route takes (undeclaredInput.ts), the body fields a test sends a route.
 */
import type { SchemaAST } from "effect"
import type * as Schema from "effect/Schema"

const fieldsOf = (ast: SchemaAST.AST, into: Set<string>): void => {
  switch (ast._tag) {
    case "TypeLiteral":
      for (const property of ast.propertySignatures) into.add(String(property.name))
      return
    case "Union":
      for (const member of ast.types) fieldsOf(member, into)
      return
    case "Refinement":
      return fieldsOf(ast.from, into)
    case "Transformation":
      return fieldsOf(ast.from, into)
    case "Suspend":
      return fieldsOf(ast.f(), into)
    default:
      return
  }
}

export const declaredFields = (schema: Schema.Schema.Any | undefined): ReadonlySet<string> => {
  const names = new Set<string>()
  if (schema !== undefined) fieldsOf(schema.ast, names)
  return names
}

/** `body` with only the fields `schema` declares (an empty object when the schema is undefined). */
export const onlyDeclared = (schema: Schema.Schema.Any | undefined, body: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const names = declaredFields(schema)
  return Object.fromEntries(Object.entries(body).filter(([name]) => names.has(name)))
}
