/**
 * Key backend `hsm`: every wallet key is an Ed25519 key pair generated inside a PKCS#11 token, its
 * private half sensitive and non-extractable; this process holds only object handles and the PIN. The
 * database records each wallet's key reference (`sealed_keys`, store `hsm`: the token, the object label and
 * the public key; nothing secret), so a restored deployment knows which token object signs for a wallet.
 */
import bs58 from "bs58"
import { type CustodyBackend, KeyUnavailable } from "../custodyBackend.js"
import type { SealedRecords } from "../sealedKeyRepo.js"
import { Pkcs11Token, type TokenOptions } from "./pkcs11Token.js"

/** A row of store `hsm`: where the wallet's key lives (the private key never leaves the token). */
export interface HsmKeyReference {
  readonly token: string
  readonly label: string
  readonly publicKey: string
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const openHsmBackend = (options: TokenOptions, records: SealedRecords): CustodyBackend => {
  const token = Pkcs11Token.open(options)
  return {
    backend: "hsm",
    provider: "hsm",
    create: async (walletId) => {
      let publicKey: Uint8Array
      try {
        publicKey = token.generate(walletId)
      } catch (error) {
        throw new KeyUnavailable(`the token could not generate a key: ${reason(error)}`)
      }
      const reference: HsmKeyReference = { token: options.slot, label: walletId, publicKey: bs58.encode(publicKey) }
      if (!(await records.insert("hsm", walletId, reference))) throw new KeyUnavailable(`wallet ${walletId} already has an hsm key`)
      return publicKey
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
