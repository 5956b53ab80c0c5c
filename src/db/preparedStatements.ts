/**
 * Named (server-side prepared) statements for the pool's connections. PostgreSQL parses, analyses and
 * plans an unnamed statement on every call; for the batched CTE statements of the pipeline's hot path
 * that cost about as much as running them (measured: 0.9 ms of PostgreSQL CPU per closed-loop transfer
 * of 2.4 ms). A statement text with parameters gets a name the first time it is seen, and each
 * connection prepares it once; node-postgres skips the Parse of a name its connection already holds.
 *
 * Bounded: statement texts built with varying text (an IN list of n placeholders) could otherwise grow
 * both sides' caches without limit, so past MAX_NAMED_STATEMENTS distinct texts the rest run unnamed,
 * as before. A statement without parameters always runs unnamed (the simple protocol, which also
 * allows several statements in one text, as migrations use).
 *
 * A prepared statement whose result type changed under it (a column added by a newer deployment's
 * migration while this process runs) fails once with "cached plan must not change result type"; its text
 * then gets a fresh name, so the next call prepares it again. DATABASE_PREPARED_STATEMENTS=false turns
 * naming off (a transaction-pooling proxy in front of PostgreSQL that cannot hold prepared statements).
 */
import pg from "pg"

const MAX_NAMED_STATEMENTS = 500

/** PostgreSQL's SQLSTATE for "cached plan must not change result type" (feature_not_supported). */
const CACHED_PLAN_CHANGED = "0A000"

/** Statement text -> name, at most `bound` texts; a forgotten text gets a fresh name when next seen. */
export class StatementNames {
  private readonly names = new Map<string, string>()
  private issued = 0
  constructor(private readonly bound: number) {}

  /** The name of a statement text, given on first sight while fewer than the bound are named. */
  nameOf(text: string): string | undefined {
    const known = this.names.get(text)
    if (known !== undefined || this.names.size >= this.bound) return known
    const name = `custody_${(this.issued++).toString(36)}`
    this.names.set(text, name)
    return name
  }

  forget(text: string) {
    this.names.delete(text)
  }

  get size() {
    return this.names.size
  }
}

const processNames = new StatementNames(MAX_NAMED_STATEMENTS)

type Callback = (error: Error | null, result: unknown) => void

const forgetOnPlanChange = (text: string, callback: Callback): Callback => (error, result) => {
  if (error !== null && (error as { code?: string }).code === CACHED_PLAN_CHANGED) processNames.forget(text)
  callback(error, result)
}

/** A node-postgres client that runs parameterised statement texts as named statements. */
export class PreparingClient extends pg.Client {
  // `any`: one override stands for node-postgres' overloads (a promise, a submittable, or nothing, by
  // argument); each call returns what the overload of its arguments returns, as super.query does.
  override query(config: unknown, values?: unknown, callback?: unknown): any {
    if (typeof config === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function") {
      const name = processNames.nameOf(config)
      if (name !== undefined) {
        return super.query({ name, text: config, values }, forgetOnPlanChange(config, callback as Callback))
      }
    }
    return (super.query as (...args: Array<unknown>) => unknown)(config, values, callback)
  }
}
