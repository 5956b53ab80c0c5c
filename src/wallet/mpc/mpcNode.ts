/**
 * One participant of 2-of-3 FROST(Ed25519, SHA-512) (RFC 9591, @noble/curves' ed25519_FROST). It
 * takes part in distributed key generation (so the group key never exists anywhere), seals its share under
 * its own node secret, and answers nonce commitments and signature shares. The node keeps no store: key
 * generation answers the sealed share record, the coordinator keeps it in the database (`sealed_keys`,
 * store `mpc-node-<n>`) and hands it back with each signing call; only this node's secret opens it (the AAD
 * binds the node and the wallet). Shares are opened only for the call that uses them. Records that earlier
 * versions wrote under DATA_DIR/mpc/node-<n> are still read when the coordinator has none
 * (docs/decisions/custody.md "Sealed keys in PostgreSQL").
 */
import type { DKG_Round1, DKG_Round2, DKG_Secret, FrostSecret, Nonces } from "@noble/curves/abstract/frost.js"
import { ed25519_FROST } from "@noble/curves/ed25519.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { scryptSync } from "node:crypto"
import { openSeed, sealSeed, type SealedSeed } from "../keyCipher.js"
import { openFrom, type SealedPackage, sealFor, transportPrivateKey, transportPublicKey } from "./dkgChannel.js"
import { type FrostPublic, type FrostPublicJson, type NonceCommitments, publicFromJson, publicToJson } from "./frostCodec.js"

const F = ed25519_FROST
export const MPC_SIGNERS = { min: 2, max: 3 } as const
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Nonces of a commitment not used for a signature within this time are dropped. */
const NONCE_TTL_MS = 60_000

/** A node's sealed share of one wallet with the public package: what a share file held, now a row. */
export interface ShareRecord {
  readonly v: 1
  readonly walletId: string
  readonly identifier: string
  readonly public: FrostPublicJson
  readonly sealedShare: SealedSeed
}

export class MpcNode {
  readonly identifier: string
  readonly transportKey: Uint8Array
  private readonly transportPrivate: Uint8Array
  private readonly shareKey: Buffer
  /** Where earlier versions kept this node's share files (read, never written). */
  private readonly legacyDirectory: string
  private readonly dkg = new Map<string, DKG_Secret>()
  private readonly nonces = new Map<string, { nonces: Nonces; expires: number }>()

  constructor(
    readonly index: number,
    nodeSecret: string,
    dataDir: string
  ) {
    this.identifier = F.Identifier.fromNumber(index)
    this.transportPrivate = transportPrivateKey(nodeSecret, index)
    this.transportKey = transportPublicKey(this.transportPrivate)
    this.shareKey = scryptSync(nodeSecret, `agent-custody/mpc/node-${index}/shares`, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
    this.legacyDirectory = path.join(dataDir, "mpc", `node-${index}`)
  }

  /** The record handed in, checked to be this node's for this wallet, else the legacy file. */
  private recordOf(walletId: string, given: ShareRecord | null | undefined): ShareRecord {
    if (!UUID.test(walletId)) throw new Error("wallet id must be a UUID")
    if (given !== null && given !== undefined) {
      if (given.walletId !== walletId || given.identifier !== this.identifier) throw new Error(`a share record of another wallet or node was handed to node ${this.index}`)
      return given
    }
    try {
      return JSON.parse(fs.readFileSync(path.join(this.legacyDirectory, `${walletId}.json`), "utf8")) as ShareRecord
    } catch {
      throw new Error(`node ${this.index} holds no share for wallet ${walletId}`)
    }
  }

  private aad(walletId: string) {
    return `mpc-share:${this.index}:${walletId}`
  }

  /** DKG round 1: a fresh secret polynomial; the public commitment and proof of knowledge are broadcast. */
  dkgRound1(walletId: string): DKG_Round1 {
    const { public: broadcast, secret } = F.DKG.round1(this.identifier, MPC_SIGNERS)
    this.dkg.set(walletId, secret)
    return broadcast
  }

  /** DKG round 2: one evaluation of this node's polynomial per other node, each sealed for its recipient. */
  dkgRound2(walletId: string, others: ReadonlyArray<DKG_Round1>, transportKeys: Readonly<Record<string, Uint8Array>>): Array<SealedPackage> {
    const secret = this.dkg.get(walletId)
    if (secret === undefined) throw new Error(`no key generation in progress for ${walletId}`)
    const packages = F.DKG.round2(secret, [...others])
    return Object.entries(packages).map(([to, pkg]) => {
      const peer = transportKeys[to]
      if (peer === undefined) throw new Error(`no transport key for participant ${to}`)
      return sealFor(this.transportPrivate, peer, walletId, this.identifier, to, pkg.signingShare)
    })
  }

  /** DKG round 3: opens the packages meant for this node, derives its share, and answers it sealed with the public package. */
  dkgRound3(
    walletId: string,
    others: ReadonlyArray<DKG_Round1>,
    received: ReadonlyArray<SealedPackage>,
    transportKeys: Readonly<Record<string, Uint8Array>>
  ): { readonly public: FrostPublic; readonly share: ShareRecord } {
    const secret = this.dkg.get(walletId)
    if (secret === undefined) throw new Error(`no key generation in progress for ${walletId}`)
    try {
      const round2: Array<DKG_Round2> = received.map((sealed) => {
        if (sealed.to !== this.identifier) throw new Error("a package meant for another participant")
        const peer = transportKeys[sealed.from]
        if (peer === undefined) throw new Error(`no transport key for participant ${sealed.from}`)
        return { identifier: sealed.from, signingShare: openFrom(this.transportPrivate, peer, walletId, sealed) as Uint8Array<ArrayBuffer> }
      })
      const key = F.DKG.round3(secret, [...others], round2)
      F.validateSecret(key.secret, key.public)
      const share: ShareRecord = {
        v: 1,
        walletId,
        identifier: this.identifier,
        public: publicToJson(key.public),
        sealedShare: sealSeed(this.shareKey, this.aad(walletId), key.secret.signingShare)
      }
      key.secret.signingShare.fill(0)
      for (const pkg of round2) pkg.signingShare.fill(0)
      return { public: key.public, share }
    } finally {
      F.DKG.clean(secret)
      this.dkg.delete(walletId)
    }
  }

  /** Drops an unfinished key generation (another node failed). */
  dkgAbort(walletId: string) {
    const secret = this.dkg.get(walletId)
    if (secret !== undefined) F.DKG.clean(secret)
    this.dkg.delete(walletId)
  }

  private load(walletId: string, given: ShareRecord | null | undefined): { secret: FrostSecret; pub: FrostPublic } {
    const file = this.recordOf(walletId, given)
    return {
      secret: { identifier: this.identifier, signingShare: openSeed(this.shareKey, this.aad(walletId), file.sealedShare) as Uint8Array<ArrayBuffer> },
      pub: publicFromJson(file.public)
    }
  }

  /** Signing round 1: fresh nonces kept here under the session id; only their commitments leave. */
  commit(walletId: string, sessionId: string, share?: ShareRecord | null): NonceCommitments {
    const { secret } = this.load(walletId, share)
    const { nonces, commitments } = F.commit(secret)
    secret.signingShare.fill(0)
    const now = Date.now()
    for (const [id, entry] of this.nonces) if (entry.expires < now) this.nonces.delete(id)
    this.nonces.set(sessionId, { nonces, expires: now + NONCE_TTL_MS })
    return commitments
  }

  /** Signing round 2: this node's signature share; its nonces are used once and dropped. */
  signShare(walletId: string, sessionId: string, commitmentList: ReadonlyArray<NonceCommitments>, message: Uint8Array, share?: ShareRecord | null): Uint8Array {
    const entry = this.nonces.get(sessionId)
    this.nonces.delete(sessionId)
    if (entry === undefined || entry.expires < Date.now()) throw new Error(`node ${this.index} has no live commitment for this signing session`)
    const { secret, pub } = this.load(walletId, share)
    try {
      return F.signShare(secret, pub, entry.nonces, [...commitmentList], message)
    } finally {
      secret.signingShare.fill(0)
    }
  }

  /** The public package recorded with the share (commitments and verifying shares). */
  publicPackage(walletId: string, share?: ShareRecord | null): FrostPublic {
    return publicFromJson(this.recordOf(walletId, share).public)
  }
}
