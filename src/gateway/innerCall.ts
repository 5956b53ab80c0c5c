/**
 * Calls the gateway makes to itself for a request it already counted: the /mcp tool routes pass each
 * tool call back through the gateway with the caller's own key (docs/decisions/mcp.md). Such a call is
 * marked with this process's random token, so it still gets the key's auth, scopes, tenancy and policy
 * but does not take a second unit of the key's rate limit. No one outside the process knows the token.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"

export const INNER_CALL_HEADER = "x-custody-inner-call"

const token = randomBytes(32)

/** The header value this process's own inner calls send. */
export const innerCallToken = token.toString("base64url")

export const isInnerCall = (presented: string | undefined): boolean => {
  if (presented === undefined) return false
  const bytes = Buffer.from(presented, "base64url")
  return bytes.length === token.length && timingSafeEqual(bytes, token)
}
