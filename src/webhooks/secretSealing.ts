/**
 * Webhook signing secrets at rest. With WEBHOOK_SECRET_KEY set, a secret is stored sealed: AES-256-GCM
 * under a key derived from it by HKDF-SHA256, a random 96-bit IV per secret, and the subscription id
 * as associated data (a sealed secret cannot be moved onto another subscription). Unset, secrets are
 * stored as given (docs/decisions/webhooks.md). Reading handles both, so setting the key later only
 * changes how new and rotated secrets are stored.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"

const PREFIX = "sealed:v1:"

export const webhookSealingKey = (secret: string): Buffer =>
  Buffer.from(hkdfSync("sha256", secret, "agent-custody", "webhook signing secrets v1", 32))

export const sealWebhookSecret = (key: Buffer | undefined, subscriptionId: string, secret: string): string => {
  if (key === undefined) return secret
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(subscriptionId, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return `${PREFIX}${iv.toString("base64")}.${cipher.getAuthTag().toString("base64")}.${ciphertext.toString("base64")}`
}

/** The secret, or undefined when it is sealed and cannot be opened (no key, another key, tampered). */
export const openWebhookSecret = (key: Buffer | undefined, subscriptionId: string, stored: string): string | undefined => {
  if (!stored.startsWith(PREFIX)) return stored
  if (key === undefined) return undefined
  const [iv, tag, ciphertext] = stored.slice(PREFIX.length).split(".")
  if (iv === undefined || tag === undefined || ciphertext === undefined) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"))
    decipher.setAAD(Buffer.from(subscriptionId, "utf8"))
    decipher.setAuthTag(Buffer.from(tag, "base64"))
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}
