/**
 * Checks answers against the service's own OpenAPI document (GET /api/v1/openapi.json) with an
 * independent JSON Schema validator (ajv, draft 2020-12, which OpenAPI 3.1 schemas are): the operation
 * is found by method and path, the schema by HTTP status (else `default`). `api()` runs it on every
 * answer, so each test that calls the service also checks that the document describes what it got.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void

export const OPENAPI_PATH = "/api/v1/openapi.json"

export interface OpenApiDocument {
  readonly openapi: string
  readonly paths: Record<string, Record<string, { readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: unknown }> }> }>>
  readonly components: { readonly schemas: Record<string, unknown> }
}

interface Operation {
  readonly template: string
  readonly method: string
  readonly pattern: RegExp
  readonly params: number
}

export interface ContractChecker {
  /** The template of the operation serving `method path`, or undefined when the document has none. */
  readonly operationOf: (method: string, path: string) => string | undefined
  /** Why the answer does not match the document, or undefined when it does (or no operation matches). */
  readonly problems: (method: string, urlPath: string, status: number, body: unknown) => string | undefined
}

const COMPONENTS_ID = "urn:contract:components"

/** `schema` with its `#/components/...` references pointing into the shared components schema. */
const onSharedComponents = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(onSharedComponents)
  if (schema === null || typeof schema !== "object") return schema
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === "$ref" && typeof value === "string" && value.startsWith("#/components/") ? [key, COMPONENTS_ID + value] : [key, onSharedComponents(value)]
    )
  )
}

export const contractChecker = (document: OpenApiDocument): ContractChecker => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const operations: Array<Operation> = []
  for (const [template, methods] of Object.entries(document.paths)) {
    const pattern = new RegExp("^" + template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+") + "$")
    for (const method of Object.keys(methods)) {
      operations.push({ template, method: method.toUpperCase(), pattern, params: (template.match(/\{/g) ?? []).length })
    }
  }
  const find = (method: string, path: string) =>
    operations.filter((op) => op.method === method.toUpperCase() && op.pattern.test(path)).sort((a, b) => a.params - b.params)[0]
  // The components once, as a schema of their own: each answer's schema refers to them there, so a
  // component is compiled once rather than once for every schema that uses it.
  ajv.addSchema({ $id: COMPONENTS_ID, components: document.components })
  const compiled = new Map<string, ValidateFunction>()
  // Compiling is the costly part: operations whose answer has the same schema (most refusals share one
  // envelope) share one validator.
  const compiledBySchema = new Map<string, ValidateFunction>()
  const validatorFor = (op: Operation, key: string, schema: unknown) => {
    const id = `${op.method} ${op.template} ${key}`
    let validate = compiled.get(id)
    if (validate === undefined) {
      const text = JSON.stringify(schema)
      validate = compiledBySchema.get(text)
      if (validate === undefined) {
        validate = ajv.compile(onSharedComponents(schema) as object)
        compiledBySchema.set(text, validate)
      }
      compiled.set(id, validate)
    }
    return validate
  }
  return {
    operationOf: (method, path) => find(method, path)?.template,
    problems: (method, urlPath, status, body) => {
      const path = urlPath.split("?")[0]!
      const op = find(method, path)
      if (op === undefined) return undefined
      const responses = document.paths[op.template]![op.method.toLowerCase()]!.responses
      const key = responses[String(status)] !== undefined ? String(status) : "default"
      const schema = responses[key]?.content?.["application/json"]?.schema
      if (schema === undefined) return key === "default" ? undefined : `${method} ${op.template}: the document lists no response ${status}`
      const validate = validatorFor(op, key, schema)
      if (validate(body)) return undefined
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)} (got ${JSON.stringify(valueAt(body, e.instancePath))?.slice(0, 80)})`)
      return `${method} ${urlPath} -> ${status} does not match ${op.template} response ${key}: ${errors.join("; ")}`
    }
  }
}

/** The value at a JSON pointer (ajv's instancePath), to show what the answer held. */
const valueAt = (value: unknown, pointer: string): unknown =>
  pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((at, part) => (at !== null && typeof at === "object" ? (at as Record<string, unknown>)[part] : undefined), value)

const checkers = new Map<string, Promise<ContractChecker>>()
/**
 * Checkers by the document's text: services of the same code serve the same document, so the test files
 * a fork runs one after another (vitest.config.ts, isolate: false) share its compiled validators.
 */
const checkersByDocument = new Map<string, ContractChecker>()

/** The checker of the service at `baseUrl`, from its document (fetched once per service). */
export const contractOf = (baseUrl: string): Promise<ContractChecker> => {
  let checker = checkers.get(baseUrl)
  if (checker === undefined) {
    checker = fetch(baseUrl + OPENAPI_PATH).then(async (response) => {
      if (response.status !== 200) throw new Error(`${baseUrl}${OPENAPI_PATH} answered ${response.status}`)
      const text = await response.text()
      let known = checkersByDocument.get(text)
      if (known === undefined) {
        known = contractChecker(JSON.parse(text) as OpenApiDocument)
        checkersByDocument.set(text, known)
      }
      return known
    })
    checkers.set(baseUrl, checker)
    // A failed fetch is not kept: the next call asks again.
    checker.catch(() => checkers.delete(baseUrl))
  }
  return checker
}

/** Every answer a test reads must match the service's own document (`api()` and the process tests' `call()` run this). */
export const assertMatchesContract = async (baseUrl: string, method: string, urlPath: string, status: number, body: unknown) => {
  if (urlPath.split("?")[0] === OPENAPI_PATH) return
  const problem = (await contractOf(baseUrl)).problems(method, urlPath, status, body)
  if (problem !== undefined) throw new Error(`the answer does not match the OpenAPI document: ${problem}`)
}
