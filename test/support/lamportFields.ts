/**
 * The wire rule "lamports are integers" (issue 17 item 2) checked on every response the tests read:
 * a field named for lamports (`lamports`, `fundLamports`, `preBalanceLamports`, `balance_lamports`, ...)
 * must be a JSON number (or null), never an amount as a string or a boolean. (A template an agent's
 * autonomy step carries, e.g. "{{tick}}000000", is not an amount and stays text.) `api()` and `call()`
 * run it on every body, so the whole suite is a schema check over the responses it records.
 */
const LAMPORT_FIELD = /(^l|L|_l)amports$/

/** Paths of lamport fields whose value is not a number or null. */
export const lamportFieldsNotNumbers = (value: unknown, path = "body"): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => lamportFieldsNotNumbers(item, `${path}[${i}]`))
  if (value === null || typeof value !== "object") return []
  return Object.entries(value).flatMap(([key, field]) => {
    const here = `${path}.${key}`
    const amountAsText = typeof field === "string" && /^\s*-?[0-9]+\s*$/.test(field)
    const own = LAMPORT_FIELD.test(key) && (amountAsText || typeof field === "boolean") ? [`${here} = ${JSON.stringify(field)}`] : []
    return [...own, ...lamportFieldsNotNumbers(field, here)]
  })
}

export const assertLamportsAreNumbers = (body: unknown, request: string) => {
  const wrong = lamportFieldsNotNumbers(body)
  if (wrong.length > 0) throw new Error(`${request}: lamport fields must be JSON integers: ${wrong.join(", ")}`)
}
