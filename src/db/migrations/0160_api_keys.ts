/**
 * Gateway API keys issued as data (issue 36; docs/decisions/access.md "Issued keys"). Only the SHA-256 of
 * a key is kept (`key_hash`); its id is the public part of the key (`agck_<id>_...`). A key bound to an
 * agent names that agent's tenant, never `*`. `last_used_at` is written in batches, not per request.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      scopes text[] NOT NULL,
      agent_id uuid,
      label text,
      key_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by text NOT NULL,
      expires_at timestamptz,
      revoked_at timestamptz,
      revoked_by text,
      revoke_reason text,
      last_used_at timestamptz,
      rotated_from text REFERENCES api_keys (id),
      replaced_by text REFERENCES api_keys (id),
      CHECK (agent_id IS NULL OR tenant_id <> '*')
    )`
  yield* sql`CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, created_at DESC)`
})
