/**
 * A race on one transaction's row, played deterministically with PostgreSQL's locks: a request's statement loses
 * to another writer, and its next read finds the row changed again. `moveAway` (SQL, `$1` the transaction's id)
 * runs in a session of its own and stays uncommitted while `send` starts, so the request's statement
 * (`loserStatement`, a LIKE pattern of its text) waits on the row's lock; a lock on the whole table, queued before
 * `moveAway` commits, then holds every later read until `moveBack` has run and committed. Answers what `send` answered.
 */
import pg from "pg"
import { waitFor } from "./wait.js"

export interface RowRace {
  readonly loserStatement: string
  readonly moveAway: string
  readonly moveBack: string
}

export const raceOnTheRow = async <A>(databaseUrl: string, txId: string, race: RowRace, send: () => Promise<A>): Promise<A> => {
  const connect = async () => {
    const connection = new pg.Client({ connectionString: databaseUrl })
    await connection.connect()
    return connection
  }
  const other = await connect()
  const tableLock = await connect()
  // Watched from a connection outside any transaction (inside one, pg_stat_activity is a snapshot).
  const watcher = await connect()
  const waitingOn = async (pattern: string) => {
    const { rows } = await watcher.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1",
      [`%${pattern}%`]
    )
    return rows[0]?.n ?? 0
  }
  try {
    await other.query("BEGIN")
    await other.query(race.moveAway, [txId])
    const answering = send()
    await waitFor("the request's statement waits on the row's lock", async () => (await waitingOn(race.loserStatement)) === 1, 10_000, 20)
    const locking = tableLock.query("BEGIN; LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE")
    await waitFor("the table lock queues behind it", async () => (await waitingOn("LOCK TABLE transactions")) === 1, 10_000, 20)
    await other.query("COMMIT")
    await locking
    await tableLock.query(race.moveBack, [txId])
    await tableLock.query("COMMIT")
    return await answering
  } finally {
    await Promise.all([other.end(), tableLock.end(), watcher.end()])
  }
}
