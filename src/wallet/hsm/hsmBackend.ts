/**
 * Key backend `hsm`: every wallet key is an Ed25519 key pair generated inside a PKCS#11 token, its
 * private half sensitive and non-extractable; this process holds only object handles and the PIN.
 */
import { type CustodyBackend, KeyUnavailable } from "../custodyBackend.js"
import { Pkcs11Token, type TokenOptions } from "./pkcs11Token.js"

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const openHsmBackend = (options: TokenOptions): CustodyBackend => {
  const token = Pkcs11Token.open(options)
  return {
    backend: "hsm",
    provider: "hsm",
    create: async (walletId) => {
      try {
        return token.generate(walletId)
      } catch (error) {
        throw new KeyUnavailable(`the token could not generate a key: ${reason(error)}`)
      }
    },
    sign: async (walletId, message) => {
      try {
        return token.sign(walletId, message)
      } catch (error) {
        throw new KeyUnavailable(`the token could not sign for wallet ${walletId}: ${reason(error)}`)
      }
    },
    close: async () => token.close()
  }
}
