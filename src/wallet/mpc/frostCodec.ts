/** JSON forms of FROST's public packages (hex strings), for share files and, later, node-to-node HTTP. */
import type { DKG_Round1, FrostPublic, NonceCommitments } from "@noble/curves/abstract/frost.js"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const bytes = (text: string) => Uint8Array.from(Buffer.from(text, "hex"))

export interface FrostPublicJson {
  readonly signers: { readonly min: number; readonly max: number }
  readonly commitments: ReadonlyArray<string>
  readonly verifyingShares: Readonly<Record<string, string>>
}

export const publicToJson = (pub: FrostPublic): FrostPublicJson => ({
  signers: { min: pub.signers.min, max: pub.signers.max },
  commitments: pub.commitments.map(hex),
  verifyingShares: Object.fromEntries(Object.entries(pub.verifyingShares).map(([id, share]) => [id, hex(share)]))
})

export const publicFromJson = (json: FrostPublicJson): FrostPublic => ({
  signers: { ...json.signers },
  commitments: json.commitments.map(bytes),
  verifyingShares: Object.fromEntries(Object.entries(json.verifyingShares).map(([id, share]) => [id, bytes(share)]))
})

export const groupPublicKeyOf = (pub: FrostPublic): Uint8Array => pub.commitments[0]!

export type { DKG_Round1, FrostPublic, NonceCommitments }
