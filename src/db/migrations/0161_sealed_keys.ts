/**
 * Sealed wallet key material in the database (issue 36; docs/decisions/custody.md "Sealed keys in
 * PostgreSQL"): one row per wallet and store, holding exactly what the key files held (encrypted-file's
 * sealed seed with its KDF salt, kms's envelope, an mpc node's sealed share record, hsm's key reference).
 * Nothing in it opens without a secret that lives only in the environment. `key_name` is the wallet id,
 * or `kdf-salt` for encrypted-file's deployment salt.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE sealed_keys (
      store text NOT NULL,
      key_name text NOT NULL,
      sealed jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store, key_name)
    )`
})
