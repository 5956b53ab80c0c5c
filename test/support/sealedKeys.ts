/** The rows of `sealed_keys` of one store, read straight from a service's database (what a backup holds). */
import pg from "pg"

export const sealedRows = async <T>(databaseUrl: string, store: string): Promise<Array<{ keyName: string; sealed: T }>> => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const rows = (await client.query<{ key_name: string; sealed: T }>("SELECT key_name, sealed FROM sealed_keys WHERE store = $1 ORDER BY key_name", [store])).rows
    return rows.map((row) => ({ keyName: row.key_name, sealed: row.sealed }))
  } finally {
    await client.end()
  }
}
