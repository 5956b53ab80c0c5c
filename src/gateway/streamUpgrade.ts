/**
 * The HTTP side of a stage-stream upgrade: the credentials of the request (headers, or query
 * parameters for browsers, whose WebSocket API cannot set headers) and the answer to a refused
 * upgrade, which is a plain HTTP response carrying the usual envelope before the socket closes.
 */
import * as http from "node:http"
import type { Duplex } from "node:stream"
import { type EnvelopeError, envelopeBody, failureReply } from "./envelope.js"

const first = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

const present = (value: string | null | undefined) => (value === null || value === undefined || value.trim() === "" ? undefined : value)

/** Headers for `authenticate`: `x-api-key` / `x-tenant-id`, falling back to `apiKey` / `tenantId` in the query. */
export const streamCredentials = (request: http.IncomingMessage, query: URLSearchParams): Record<string, string | undefined> => ({
  "x-api-key": present(first(request.headers["x-api-key"])) ?? present(query.get("apiKey")),
  "x-tenant-id": present(first(request.headers["x-tenant-id"])) ?? present(query.get("tenantId"))
})

/** Writes `status` + envelope on the raw socket and closes it (no WebSocket is opened). */
export const refuseUpgrade = (
  socket: Duplex,
  error: EnvelopeError,
  traceId: string,
  extraHeaders: Record<string, string> = {}
): void => {
  if (socket.destroyed) return
  const body = JSON.stringify(envelopeBody(failureReply(error), traceId))
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "x-trace-id": traceId,
    connection: "close",
    ...extraHeaders
  }
  const head = [`HTTP/1.1 ${error.httpStatus} ${http.STATUS_CODES[error.httpStatus] ?? "Error"}`]
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`)
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`)
}
