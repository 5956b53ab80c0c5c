/**
 * Signing secrets of webhook subscriptions, in the Standard Webhooks form `whsec_<base64 of 32 random
 * bytes>` that receivers' libraries take as is. A secret is shown once (create, rotate) and is never
 * logged; it is kept in SQL because every delivery is signed with it (docs/decisions/webhooks.md).
 */
import { randomBytes } from "node:crypto"

export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`
