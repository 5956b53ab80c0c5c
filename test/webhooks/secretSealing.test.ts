/** Webhook signing secrets sealed at rest: they open only with the same key and subscription id. */
import { describe, expect, it } from "vitest"
import { openWebhookSecret, sealWebhookSecret, webhookSealingKey } from "../../src/webhooks/secretSealing.js"
import { newWebhookSecret } from "../../src/webhooks/webhookSecret.js"

const key = webhookSealingKey("a webhook secret key")
const id = "6a1f7f57-1f0e-4f39-9d1e-4b8f3a1c2d3e"

describe("webhook secret sealing", () => {
  it("seals with a fresh IV each time and opens with the same key and subscription", () => {
    const secret = newWebhookSecret()
    const sealed = sealWebhookSecret(key, id, secret)
    expect(sealed).not.toContain(secret.slice(6))
    expect(sealWebhookSecret(key, id, secret)).not.toBe(sealed)
    expect(openWebhookSecret(key, id, sealed)).toBe(secret)
  })

  it("refuses another key, another subscription, no key, and a tampered value", () => {
    const sealed = sealWebhookSecret(key, id, newWebhookSecret())
    expect(openWebhookSecret(webhookSealingKey("another key"), id, sealed)).toBeUndefined()
    expect(openWebhookSecret(key, "00000000-0000-4000-8000-000000000000", sealed)).toBeUndefined()
    expect(openWebhookSecret(undefined, id, sealed)).toBeUndefined()
    const tampered = sealed.slice(0, -4) + (sealed.endsWith("AAAA") ? "BBBB" : "AAAA")
    expect(openWebhookSecret(key, id, tampered)).toBeUndefined()
  })

  it("stores as given without a key, and reads a secret stored that way with or without one", () => {
    const secret = newWebhookSecret()
    expect(sealWebhookSecret(undefined, id, secret)).toBe(secret)
    expect(openWebhookSecret(key, id, secret)).toBe(secret)
    expect(openWebhookSecret(undefined, id, secret)).toBe(secret)
  })
})
