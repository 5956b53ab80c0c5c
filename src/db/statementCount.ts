/**
 * The statements this process's pool sent to PostgreSQL, counted at the driver (each one a round trip:
 * node-postgres sends the next of a connection only after the last one's answer). Exposed on /metrics as
 * `custody_db_statements_total`: over a rate of confirmed transfers it is the statements per transfer of
 * the capacity model (docs/benchmarks.md), and beside the database's own capacity it says how many
 * processes one PostgreSQL can serve. BEGIN and COMMIT count: they are round trips too.
 */
import { Context } from "effect"
import type pg from "pg"

export class StatementCount {
  sent = 0
}

/** This database layer's count (one per pool: tests run several services in one process). */
export class DatabaseStatements extends Context.Tag("DatabaseStatements")<DatabaseStatements, StatementCount>() {}

/** `Base` whose every query is counted in `count`. */
export const countingStatements = (Base: typeof pg.Client, count: StatementCount): typeof pg.Client =>
  class extends Base {
    // `any`: one override stands for node-postgres' overloads; each call returns what super.query returns.
    override query(...args: Array<unknown>): any {
      count.sent++
      return (super.query as (...args: Array<unknown>) => unknown)(...args)
    }
  }
