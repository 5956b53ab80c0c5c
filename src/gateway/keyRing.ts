/**
 * What the gateway asks of the keys component (src/keys/): the issued key a presented key is, and where
 * uses and failed uses are recorded (the audit log and a key's last use, in batches off the request path).
 * A port, so the gateway does not import the component that imports it (its routes use the gateway).
 */
import { Context } from "effect"
import type { ApiKeyEntry } from "./apiKeys.js"

/** Why a presented key was refused (recorded for the audit log; the answer is the same 401 for all). */
export type KeyRefusal = "unknown" | "expired" | "wrong_secret" | "insufficient_scope" | "tenant_mismatch"

export interface KeyFailure {
  /** The key's public id when the presented key names a known one (never any part of an unknown key). */
  readonly keyId: string | null
  readonly tenant: string | null
  readonly reason: KeyRefusal
  readonly sourceAddress: string | undefined
}

export type IssuedKeyLookup =
  /** Not of the issued format: the bootstrap keys decide. */
  | { readonly _tag: "NotIssued" }
  | { readonly _tag: "Found"; readonly entry: ApiKeyEntry }
  | { readonly _tag: "Refused"; readonly keyId: string; readonly tenant: string | null; readonly reason: KeyRefusal }

export interface KeyRingService {
  /** Synchronous: an in-memory look-up kept current by NOTIFY (src/keys/issuedKeys.ts). */
  readonly find: (presented: string, now: number) => IssuedKeyLookup
  /** Whether an issued key that authenticated earlier still may (not revoked, not expired): for open connections. */
  readonly isCurrent: (keyId: string, now: number) => boolean
  readonly recordUse: (entry: ApiKeyEntry) => void
  readonly recordFailure: (failure: KeyFailure) => void
}

export class KeyRing extends Context.Tag("KeyRing")<KeyRing, KeyRingService>() {}
