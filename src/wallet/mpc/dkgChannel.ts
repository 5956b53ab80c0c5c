/**
 * The private channel of distributed key generation: a round-2 package (a point of one node's secret
 * polynomial, meant for exactly one other node) is sealed for its recipient with X25519 + HKDF +
 * AES-256-GCM, so whoever relays the packages (the coordinator, or an HTTP hop) never sees a share.
 * Each node's X25519 key is derived from its node secret.
 */
import { x25519 } from "@noble/curves/ed25519.js"
import { hkdfSync } from "node:crypto"
import { openSeed, sealSeed, type SealedSeed } from "../keyCipher.js"

export interface SealedPackage {
  readonly from: string
  readonly to: string
  readonly box: SealedSeed
}

export const transportPrivateKey = (nodeSecret: string, nodeIndex: number): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", nodeSecret, `agent-custody/mpc/node-${nodeIndex}`, "dkg transport x25519", 32))

export const transportPublicKey = (privateKey: Uint8Array): Uint8Array => x25519.getPublicKey(privateKey)

const channelKey = (ownPrivate: Uint8Array, peerPublic: Uint8Array, walletId: string) =>
  Buffer.from(hkdfSync("sha256", x25519.getSharedSecret(ownPrivate, peerPublic), walletId, "dkg round2 channel", 32))

const aad = (walletId: string, from: string, to: string) => `mpc-dkg:${walletId}:${from}:${to}`

export const sealFor = (ownPrivate: Uint8Array, peerPublic: Uint8Array, walletId: string, from: string, to: string, payload: Uint8Array): SealedPackage => {
  const key = channelKey(ownPrivate, peerPublic, walletId)
  const box = sealSeed(key, aad(walletId, from, to), payload)
  key.fill(0)
  return { from, to, box }
}

export const openFrom = (ownPrivate: Uint8Array, peerPublic: Uint8Array, walletId: string, sealed: SealedPackage): Uint8Array => {
  const key = channelKey(ownPrivate, peerPublic, walletId)
  try {
    return openSeed(key, aad(walletId, sealed.from, sealed.to), sealed.box)
  } finally {
    key.fill(0)
  }
}
