/**
 * JSON Schemas made from the contract (the OpenAPI document, the MCP tools' input and output schemas) are
 * published without Effect's marker ids: `unknown`/`any` carry an `$id` that clashes once several share
 * one document (Ajv refuses "reference /schemas/unknown resolves to more than one schema"). Nothing here does I/O.
 */
export const withoutMarkerIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutMarkerIds)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    if (key === "$id" && typeof child === "string" && child.startsWith("/schemas/")) continue
    out[key] = withoutMarkerIds(child)
  }
  return out
}
