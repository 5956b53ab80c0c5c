/**
 * The local ledger answers only this machine's own programs (issue 11 item 7): a request whose Host is
 * not a loopback name (DNS rebinding: a web page's host name resolved to 127.0.0.1) or that carries a
 * browser Origin other than a loopback one (cross-site requests from a page) is refused with 403.
 * Programs (web3.js, @solana/kit, the service's ChainClient) send Host 127.0.0.1/localhost and no Origin.
 */
import type { IncomingHttpHeaders } from "node:http"

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"])

/** A Host header value (name with optional port) naming this machine's loopback interface. */
const isLoopbackHost = (host: string): boolean => {
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]
  const port = host.slice(name.length)
  return LOOPBACK_HOSTS.has(name.toLowerCase()) && /^(:[0-9]{1,5})?$/.test(port)
}

const isLoopbackOrigin = (origin: string): boolean => {
  try {
    const url = new URL(origin)
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.host) && url.origin === origin
  } catch {
    return false
  }
}

/** Why a request is refused, or undefined when it may be served. */
export const foreignRequestReason = (headers: IncomingHttpHeaders): string | undefined => {
  const host = headers.host
  if (host === undefined || !isLoopbackHost(host)) return "Host must name the loopback interface (127.0.0.1, localhost or [::1])"
  const origin = headers.origin
  if (origin !== undefined && !isLoopbackOrigin(origin)) return "cross-origin requests are refused"
  return undefined
}

/** The JSON-RPC error body of a refusal. */
export const refusalBody = (reason: string) =>
  JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message: `Forbidden: ${reason}` }, id: null })
