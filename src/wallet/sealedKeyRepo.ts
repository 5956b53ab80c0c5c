/**
 * The `sealed_keys` table (owner: the wallet component): each key backend's sealed material per wallet,
 * exactly as its key files held it (docs/decisions/custody.md "Sealed keys in PostgreSQL"). A row is
 * written once per wallet and store (`insert` never replaces: a wallet's key is never overwritten);
 * only a kms master-key rotation rewrites rows (`replace`). Nothing here can open what it stores.
 *
 * The backends are plain classes with Promise methods: `sealedRecords` gives them this repository as one.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Runtime, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"

/** Where a row belongs: a backend, or one mpc node's shares. */
export type SealedStore = "encrypted-file" | "kms" | "hsm" | `mpc-node-${number}`

export interface SealedRow {
  readonly keyName: string
  readonly sealed: unknown
}

const KeyNameRow = Schema.Struct({ key_name: Schema.String })

const SealedValueRow = Schema.Struct({ sealed: Schema.Unknown })

const SealedKeyRow = Schema.Struct({ key_name: Schema.String, sealed: Schema.Unknown })

export class SealedKeyRepo extends Effect.Service<SealedKeyRepo>()("SealedKeyRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Stores a row once; false when the store already holds one under that name (it is left as it was). */
    const insert = (store: SealedStore, keyName: string, sealed: unknown) =>
      sql`
        INSERT INTO sealed_keys (store, key_name, sealed) VALUES (${store}, ${keyName}, ${JSON.stringify(sealed)}::jsonb)
        ON CONFLICT (store, key_name) DO NOTHING RETURNING key_name
      `.pipe(decodeRows("sealed_keys", KeyNameRow), Effect.map((rows) => rows.length === 1))

    const get = (store: SealedStore, keyName: string) =>
      sql`SELECT sealed FROM sealed_keys WHERE store = ${store} AND key_name = ${keyName}`.pipe(
        decodeRows("sealed_keys", SealedValueRow),
        Effect.map((rows) => rows[0]?.sealed)
      )

    /** A kms rotation's rewrite of one envelope. */
    const replace = (store: SealedStore, keyName: string, sealed: unknown) =>
      sql`UPDATE sealed_keys SET sealed = ${JSON.stringify(sealed)}::jsonb, updated_at = now() WHERE store = ${store} AND key_name = ${keyName}`.pipe(Effect.asVoid)

    const list = (store: SealedStore) =>
      sql`SELECT key_name, sealed FROM sealed_keys WHERE store = ${store} ORDER BY key_name`.pipe(
        decodeRows("sealed_keys", SealedKeyRow),
        Effect.map((rows): ReadonlyArray<SealedRow> => rows.map((row) => ({ keyName: row.key_name, sealed: row.sealed })))
      )

    return { insert, get, replace, list }
  })
}) {}

/** The repository as Promises, for the key backends (plain classes). */
export interface SealedRecords {
  readonly insert: (store: SealedStore, keyName: string, sealed: unknown) => Promise<boolean>
  readonly get: (store: SealedStore, keyName: string) => Promise<unknown>
  readonly replace: (store: SealedStore, keyName: string, sealed: unknown) => Promise<void>
  readonly list: (store: SealedStore) => Promise<ReadonlyArray<SealedRow>>
}

export const sealedRecords = Effect.gen(function* () {
  const repo = yield* SealedKeyRepo
  const run = Runtime.runPromise(yield* Effect.runtime<never>())
  const records: SealedRecords = {
    insert: (store, keyName, sealed) => run(repo.insert(store, keyName, sealed)),
    get: (store, keyName) => run(repo.get(store, keyName)),
    replace: (store, keyName, sealed) => run(repo.replace(store, keyName, sealed)),
    list: (store) => run(repo.list(store))
  }
  return records
})
