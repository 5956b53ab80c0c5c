/**
 * What the CLI prints for a person (`--json` prints the service's envelope as it came): one line per wallet,
 * transaction, policy, agent, API key or webhook (with an issued key's or a webhook's secret, shown this once), a list as its lines,
 * anything else as `key: value` lines; a refusal on stderr with its errorCode, stage and traceId.
 */
import type { Envelope } from "../../sdk/src/index.js"

type Fields = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** One line for a resource the CLI knows by its fields; undefined for anything else. */
const line = (item: Fields): string | undefined => {
  if ("status" in item && "type" in item && "walletId" in item && "id" in item) {
    const outcome =
      item.status === "failed"
        ? `${text(item.errorCode)} at ${text(item.failedAt)}: ${text(item.error ?? "")}`
        : item.signature !== undefined
          ? `signature ${text(item.signature)}`
          : `stage ${text(item.stage)}`
    return `tx ${text(item.id)}  ${text(item.type)} ${text(item.protocol)}  ${text(item.status)}  ${outcome}`
  }
  if ("publicKey" in item && "provider" in item && "id" in item) {
    return `wallet ${text(item.id)}  ${text(item.publicKey)}  ${text(item.status)}${item.label === undefined ? "" : `  "${text(item.label)}"`}`
  }
  if ("rules" in item && "version" in item && "walletId" in item) {
    const rules = Array.isArray(item.rules) ? item.rules.length : 0
    return `policy ${text(item.id)}  "${text(item.name)}" v${text(item.version)} ${item.active === true ? "active" : "inactive"}  ${rules} rule(s) on wallet ${text(item.walletId)}`
  }
  if ("prefix" in item && "scopes" in item && "id" in item) {
    const scopes = Array.isArray(item.scopes) ? item.scopes.join(",") : text(item.scopes)
    const agent = item.agentId === null || item.agentId === undefined ? "" : `  agent ${text(item.agentId)}`
    const label = item.label === null || item.label === undefined ? "" : `  "${text(item.label)}"`
    return `key ${text(item.id)}  ${text(item.status)}  tenant ${text(item.tenantId)}  scopes ${scopes}${agent}${label}`
  }
  if ("executionMode" in item && "allowedIntents" in item && "id" in item) {
    return `agent ${text(item.id)}  "${text(item.name)}" ${text(item.status)} ${text(item.executionMode)}  wallet ${text(item.walletId)}`
  }
  if ("url" in item && "eventTypes" in item && "id" in item) {
    const events = Array.isArray(item.eventTypes) ? item.eventTypes.join(",") : text(item.eventTypes)
    return `webhook ${text(item.id)}  ${text(item.url)}  events ${events}${item.description === null || item.description === undefined ? "" : `  "${text(item.description)}"`}`
  }
  if ("auditEventId" in item && "attempts" in item && "id" in item) {
    const last = item.lastError === null || item.lastError === undefined ? "" : `  last error: ${text(item.lastError)}`
    return `delivery ${text(item.id)}  ${text(item.eventType)}  ${text(item.status)} after ${text(item.attempts)} attempt(s)${last}`
  }
  return undefined
}

const keyValues = (data: Fields) => Object.entries(data).map(([key, value]) => `${key}: ${text(value)}`)

/** The lines for `data`. */
export const render = (data: unknown): Array<string> => {
  if (!isObject(data)) return [text(data)]
  const known = line(data)
  // An issued or rotated key's (or webhook's) secret: shown this once, so printed where the operator sees it.
  if (known !== undefined) return typeof data.secret === "string" ? [known, `secret: ${data.secret}`] : [known]
  // A rotation: the new key (with its secret) and the one it replaces.
  if (isObject(data.key) && isObject(data.previous)) return [...render(data.key), `replaces ${line(data.previous) ?? text(data.previous)}`]
  // A page: `{ <items>, total, limit, offset }`.
  const items = Object.entries(data).find(([, value]) => Array.isArray(value))
  if (items !== undefined && "total" in data) {
    const [, list] = items as [string, ReadonlyArray<unknown>]
    const rows = list.map((item) => (isObject(item) ? (line(item) ?? JSON.stringify(item)) : text(item)))
    return [...rows, `(${rows.length} of ${text(data.total)})`]
  }
  return keyValues(data)
}

export const describeFailure = (envelope: Envelope<unknown>, httpStatus: number) =>
  `error: ${envelope.errorCode ?? "ERROR"} at ${envelope.failedAt ?? envelope.stage} (HTTP ${httpStatus}, traceId ${envelope.traceId}): ${envelope.error ?? "no message"}`
