/**
 * One delivery attempt: POST the event's JSON to the subscriber, signed per Standard Webhooks
 * (`webhook-id` = the delivery id, the same on every retry so receivers can drop duplicates;
 * `webhook-timestamp` = seconds of this attempt; `webhook-signature` = `v1,<base64 HMAC-SHA256>` of
 * `id.timestamp.body` with the subscription's current secret), by the `standardwebhooks` library.
 * Success is a 2xx answer within WEBHOOK_TIMEOUT_MS; redirects are not followed (a 3xx is a failure).
 */
import { Webhook } from "standardwebhooks"
import { fetch } from "undici"
import type { ClaimedDelivery } from "./deliveryQueue.js"
import { deliveryRoute, selfTargetRefusalIn } from "./selfTarget.js"

export type AttemptOutcome =
  | { readonly ok: true; readonly statusCode: number }
  | { readonly ok: false; readonly statusCode: number | null; readonly error: string }

export const USER_AGENT = "agent-custody-webhooks/1"

export const signedHeaders = (delivery: { readonly id: string; readonly secret: string; readonly payload: string }, at: Date) => ({
  "content-type": "application/json",
  "user-agent": USER_AGENT,
  "webhook-id": delivery.id,
  "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
  "webhook-signature": new Webhook(delivery.secret).sign(delivery.id, at, delivery.payload)
})

/** `isOurPort`: whether a URL names a port this service listens on (never delivered to on this machine, selfTarget.ts). */
export const attemptDelivery = async (delivery: ClaimedDelivery, timeoutMs: number, isOurPort: (url: URL) => boolean): Promise<AttemptOutcome> => {
  const secret = delivery.secret
  // Fail closed: never send unsigned.
  if (secret === undefined) return { ok: false, statusCode: null, error: "the signing secret is sealed under another WEBHOOK_SECRET_KEY (or none is set): rotate the secret" }
  const route = deliveryRoute(delivery.url, isOurPort)
  if ("refused" in route) return { ok: false, statusCode: null, error: `refused: ${route.refused}` }
  try {
    const response = await fetch(delivery.url, {
      method: "POST",
      headers: signedHeaders({ id: delivery.id, secret, payload: delivery.payload }, new Date()),
      body: delivery.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      ...(route.dispatcher === undefined ? {} : { dispatcher: route.dispatcher })
    })
    // The answer's body is not used: dropped unread, so a receiver cannot make us hold a large one in memory.
    await response.body?.cancel().catch(() => undefined)
    if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status }
    return { ok: false, statusCode: response.status, error: `HTTP ${response.status}` }
  } catch (error) {
    const refused = selfTargetRefusalIn(error)
    if (refused !== undefined) return { ok: false, statusCode: null, error: `refused: ${refused}` }
    // Never the URL's query or anything of the request: the cause's name and message only.
    const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error) : undefined
    return { ok: false, statusCode: null, error: cause === undefined ? "request failed" : `${cause.name}: ${cause.message}` }
  }
}
