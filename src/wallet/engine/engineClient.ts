/**
 * The key store of a process that holds no key: it asks the wallet engine (WALLET_ENGINE_URL) over
 * HTTP with the internal token. Signing names the transaction, which the engine checks itself.
 */
import bs58 from "bs58"
import type { KeyBackend, WalletProvider } from "../../../schemas/wallet.js"
import { KeyUnavailable } from "../custodyBackend.js"
import { bearer, INTERNAL_TOKEN_HEADER } from "./internalToken.js"

const TIMEOUT_MS = 30_000

export const walletEngineClient = (baseUrl: string, token: string) => {
  const call = async <A>(path: string, body: unknown): Promise<A> => {
    let response: Response
    try {
      response = await fetch(new URL(path, baseUrl), {
        method: "POST",
        headers: { "content-type": "application/json", [INTERNAL_TOKEN_HEADER]: bearer(token) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS)
      })
    } catch (error) {
      throw new KeyUnavailable(`the wallet engine is unreachable: ${error instanceof Error ? error.message : String(error)}`)
    }
    const json = (await response.json().catch(() => ({}))) as { error?: string; frozen?: boolean } & A
    // A freeze's refusal is passed on as it is: it names the freeze, and the transaction fails as a policy refusal.
    if (!response.ok && json.frozen === true && json.error !== undefined) throw new KeyUnavailable(json.error, true)
    if (!response.ok) throw new KeyUnavailable(`the wallet engine refused: ${json.error ?? `HTTP ${response.status}`}`)
    return json
  }

  return {
    createKey: async (walletId: string) => {
      const created = await call<{ publicKey: string; backend: KeyBackend; provider: WalletProvider }>("/internal/v1/keys", { walletId })
      return { publicKey: bs58.decode(created.publicKey), backend: created.backend, provider: created.provider }
    },
    sign: async (txId: string, walletId: string, message: Uint8Array) => {
      const signed = await call<{ signature: string; signedAt?: string }>("/internal/v1/sign", { txId, walletId, message: Buffer.from(message).toString("base64") })
      return { signature: new Uint8Array(Buffer.from(signed.signature, "base64")), signedAt: signed.signedAt === undefined ? new Date() : new Date(signed.signedAt) }
    }
  }
}
