/**
 * RPC URLs often carry a provider key (`?api-key=…`, `user:pass@`, or a key as a path
 * segment). Statuses, failover events and errors show the redacted form only.
 */
export const redactRpcUrl = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "<invalid url>"
  }
  const userinfo = parsed.username || parsed.password ? "***@" : ""
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=***`).join("&")
  // a long opaque path segment (e.g. /v2/<key>) is treated as a key
  const path = parsed.pathname
    .split("/")
    .map((segment) => (segment.length >= 24 ? "***" : segment))
    .join("/")
  return `${parsed.protocol}//${userinfo}${parsed.host}${path === "/" ? "" : path}${query ? `?${query}` : ""}`
}
