/**
 * Pages of a list by its sort key (keyset pagination) beside limit/offset: a list declares its ORDER BY
 * columns, a page after a cursor starts strictly after the cursor's key (stable while rows are added or
 * removed before it, and an index range scan however deep), and the count of matches stops at
 * LIST_TOTAL_CAP (a count over millions of rows would cost more than the page). Column names are the
 * caller's constants, never input. docs/decisions/production.md "Lists".
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { encodePageCursor, LIST_TOTAL_CAP } from "../../schemas/common.js"
import { ValidationError } from "../../schemas/errors.js"
import { decodeRows } from "./rowDecoding.js"

/** One ORDER BY column: its SQL (e.g. `t.created_at`), direction and type (how a cursor value is checked and cast). */
export interface SortColumn {
  readonly column: string
  readonly descending: boolean
  readonly type: "timestamptz" | "uuid" | "bigint" | "integer" | "text"
}

const VALUE_FORMATS: Record<SortColumn["type"], RegExp> = {
  // As PostgreSQL writes timestamptz::text (any session time zone).
  timestamptz: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  bigint: /^-?\d{1,19}$/,
  integer: /^-?\d{1,10}$/,
  text: /^[\s\S]{0,256}$/
}

const badCursor = () => new ValidationError({ message: "cursor: must be a nextCursor this list answered", field: "cursor" })

export interface PageRequest {
  readonly limit: number
  readonly offset: number
  readonly cursor?: ReadonlyArray<string> | undefined
}

/** The page fields of an answer (schemas/common.ts PageFields) but the items. */
export interface PageInfo {
  readonly total: number
  readonly totalCapped: boolean
  readonly limit: number
  readonly offset: number
  readonly nextCursor: string | null
}

/** A row of a page read: the list's row and its `page_key` column (keyColumn below). */
export const withPageKey = <Fields extends Schema.Struct.Fields>(row: Schema.Struct<Fields>) => Schema.Struct({ ...row.fields, page_key: Schema.Unknown })

const Count = Schema.Struct({ n: Schema.String })

export const makeKeyset = (sql: SqlClient.SqlClient, columns: ReadonlyArray<SortColumn>) => {
  /** `ORDER BY` text. */
  const orderBy = sql.unsafe(columns.map((c) => `${c.column}${c.descending ? " DESC" : ""}`).join(", "))
  /** A select column `page_key`: the sort key as a JSON array of text, the next cursor's contents. */
  const keyColumn = sql.unsafe(`json_build_array(${columns.map((c) => `${c.column}::text`).join(", ")}) AS page_key`)

  const beyond = (c: SortColumn, value: string) => (c.descending ? sql`${sql.unsafe(c.column)} < ${value}::${sql.unsafe(c.type)}` : sql`${sql.unsafe(c.column)} > ${value}::${sql.unsafe(c.type)}`)
  const equal = (c: SortColumn, value: string) => sql`${sql.unsafe(c.column)} = ${value}::${sql.unsafe(c.type)}`

  /**
   * The rows strictly after `cursor` in this order, or a 400 naming `cursor` when it is not one of this
   * list's. With more than one column: (a after) OR (a = and b after) ..., led by `a <=/>= value` so the
   * index is scanned from the cursor on.
   */
  const after = (cursor: ReadonlyArray<string>): Effect.Effect<Fragment, ValidationError> => {
    if (cursor.length !== columns.length || columns.some((c, i) => !VALUE_FORMATS[c.type].test(cursor[i]!))) return Effect.fail(badCursor())
    const alternatives = columns.map((c, i) => sql.and([...columns.slice(0, i).map((p, j) => equal(p, cursor[j]!)), beyond(c, cursor[i]!)]))
    const lead = columns[0]!
    const leading = lead.descending ? sql`${sql.unsafe(lead.column)} <= ${cursor[0]!}::${sql.unsafe(lead.type)}` : sql`${sql.unsafe(lead.column)} >= ${cursor[0]!}::${sql.unsafe(lead.type)}`
    return Effect.succeed(columns.length === 1 ? alternatives[0]! : sql.and([leading, sql.or(alternatives)]))
  }

  /** The filter of a page: the list's own conditions and, with a cursor, the rows after it. */
  const where = (conditions: ReadonlyArray<Fragment>, page: PageRequest) =>
    page.cursor === undefined ? Effect.succeed(sql.and([...conditions])) : Effect.map(after(page.cursor), (rest) => sql.and([...conditions, rest]))

  /** How many rows match `conditions` (no cursor), counting at most LIST_TOTAL_CAP + 1. */
  const cappedTotal = (from: Fragment, conditions: ReadonlyArray<Fragment>) =>
    Effect.map(
      sql`SELECT count(*)::text AS n FROM (SELECT 1 FROM ${from} WHERE ${sql.and([...conditions])} LIMIT ${LIST_TOTAL_CAP + 1}) AS matches`.pipe(
        decodeRows("a list's count", Count)
      ),
      ([row]) => {
        const n = Number(row?.n ?? 0)
        return { total: Math.min(n, LIST_TOTAL_CAP), totalCapped: n > LIST_TOTAL_CAP }
      }
    )

  /**
   * Splits rows read with LIMIT page.limit + 1 into the page's rows and its PageInfo: a next cursor
   * (the last row's key) only when a further row exists.
   */
  const pageOf = <R extends { readonly page_key: unknown }>(rows: ReadonlyArray<R>, page: PageRequest, counted: { total: number; totalCapped: boolean }) => {
    const items = rows.slice(0, page.limit)
    const last = items[items.length - 1]
    const key = typeof last?.page_key === "string" ? (JSON.parse(last.page_key) as Array<string>) : (last?.page_key as Array<string> | undefined)
    const info: PageInfo = {
      ...counted,
      limit: page.limit,
      offset: page.offset,
      nextCursor: rows.length > page.limit && key !== undefined ? encodePageCursor(key) : null
    }
    return { items, info }
  }

  return { orderBy, keyColumn, where, cappedTotal, pageOf }
}
