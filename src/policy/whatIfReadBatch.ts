/**
 * Concurrent POST /evaluate calls share their snapshot statement (statementBatch.ts): under load, one
 * statement (whatIfSnapshot.ts) reads the snapshots of every call queued meanwhile. A failed statement
 * is tried again per read, so a failure answers exactly as the read alone would.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { makeStatementBatch } from "../db/statementBatch.js"
import { readWhatIfSnapshots, type WhatIfInput, type WhatIfSnapshot } from "./whatIfSnapshot.js"

const MAX_BATCH = 64

export const makeWhatIfReadBatch = (sql: SqlClient.SqlClient) => {
  const batch = makeStatementBatch(
    (inputs: ReadonlyArray<WhatIfInput>) => readWhatIfSnapshots(inputs).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
    { maxBatch: MAX_BATCH, repeatable: true }
  )

  /** The snapshot of one input (undefined: no such wallet for this caller). */
  const read = (input: WhatIfInput): Effect.Effect<WhatIfSnapshot | undefined, unknown> => batch.submit(input)

  return { read }
}
