/**
 * Where a run's WAL goes: the WAL bytes between two positions of the server's log, by the table each record was
 * written for (its heap, its TOAST table and its indexes), read with PostgreSQL's pg_walinspect (contrib, 15 and
 * later). The capacity model's WAL per transfer (docs/benchmarks.md) says how much; this says which table's rows
 * and indexes make it, so the next cut is aimed at the right table. A record is counted once, for its first block;
 * what names no table of this database (commit records, other databases, the catalogs) is one row of its own.
 */
import type { FreshDatabase } from "../../test/support/processes.js"

export interface TableWal {
  readonly table: string
  readonly heap: number
  readonly toast: number
  readonly indexes: number
  /** Of the three, the bytes of full-page images (a page's first change after a checkpoint writes it whole). */
  readonly fullPageImages: number
}

/** What a database needs before its first position is taken; false when the server cannot have the extension. */
export const prepareWalByTable = (database: FreshDatabase): Promise<boolean> =>
  database.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect").then(
    () => true,
    () => false
  )

const OTHER = "(no table of this database: commits, catalogs, other databases)"

/** Each table's WAL bytes between `from` and `to`, most first; or, when the log cannot be read, the reason (a string). */
export const walByTable = async (database: FreshDatabase, from: string, to: string): Promise<ReadonlyArray<TableWal> | string> => {
  try {
    const rows = await database.query<{ table: string | null; part: string | null; bytes: string; fpi: string }>(`
      WITH parts AS (
        SELECT c.relfilenode AS filenode, c.relname AS table_name, 'heap' AS part FROM pg_class c WHERE c.relkind IN ('r', 'p')
        UNION ALL
        SELECT i.relfilenode, t.relname, 'indexes' FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid WHERE t.relkind IN ('r', 'p')
        UNION ALL
        SELECT s.relfilenode, t.relname, 'toast' FROM pg_class t JOIN pg_class s ON s.oid = t.reltoastrelid
        UNION ALL
        SELECT i.relfilenode, t.relname, 'toast' FROM pg_class t JOIN pg_index x ON x.indrelid = t.reltoastrelid JOIN pg_class i ON i.oid = x.indexrelid
      ), records AS (
        SELECT record_length, fpi_length,
               substring(block_ref from 'rel [0-9]+/([0-9]+)/') AS db, substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)') AS filenode
        FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
      )
      SELECT p.table_name AS table, p.part, sum(r.record_length)::text AS bytes, sum(r.fpi_length)::text AS fpi
      FROM records r
      LEFT JOIN parts p ON r.db = (SELECT oid::text FROM pg_database WHERE datname = current_database()) AND p.filenode::text = r.filenode
      GROUP BY 1, 2`, [from, to])
    const tables = new Map<string, { heap: number; toast: number; indexes: number; fullPageImages: number }>()
    for (const row of rows) {
      const name = row.table ?? OTHER
      const entry = tables.get(name) ?? { heap: 0, toast: 0, indexes: 0, fullPageImages: 0 }
      const part = row.part === "toast" || row.part === "indexes" ? row.part : "heap"
      entry[part] += Number(row.bytes)
      entry.fullPageImages += Number(row.fpi)
      tables.set(name, entry)
    }
    return [...tables]
      .map(([table, bytes]) => ({ table, ...bytes }))
      .sort((a, b) => b.heap + b.toast + b.indexes - (a.heap + a.toast + a.indexes))
  } catch (error) {
    // the log recycled past `from` by a checkpoint, or the extension refused
    return error instanceof Error ? error.message : String(error)
  }
}
