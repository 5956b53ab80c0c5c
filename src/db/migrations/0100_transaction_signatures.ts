/**
 * Never pay twice (issue 30): every signature a transaction's bytes may have left the service with,
 * kept after a retry replaces the attempt that signed it, with the last block height at which it can
 * land (its blockhash's) and what the chain said of it once known. Before a transaction is built
 * again, each unsettled one is asked of the chain (src/pipeline/signatureLog.ts, settlement.ts).
 * The partial index serves the settlement resolver's sweep of transactions left at `submitting`.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE transaction_signatures (
      tx_id uuid NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
      signature text NOT NULL,
      attempt integer NOT NULL,
      via text NOT NULL CHECK (via IN ('rpc', 'relay', 'x402')),
      last_valid_block_height bigint,
      outcome text CHECK (outcome IN ('landed', 'failed_on_chain', 'not_landed')),
      settled_at_height bigint,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz,
      PRIMARY KEY (tx_id, signature)
    )`
  yield* sql`CREATE INDEX transactions_submitting_idx ON transactions (updated_at) WHERE status = 'submitting'`
})
