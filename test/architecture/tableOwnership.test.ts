/**
 * One owner per table (issue 19, item 4): outside the migrations, only the owning component's files
 * (src/ and the actors acting for it) name a table in SQL, except the owners' documented shared statements (tableOwners.ts). A new table
 * needs an owner; a foreign statement added anywhere fails here with the file and the table.
 */
import { describe, expect, it } from "vitest"
import { ACTORS, componentOf, createdTables, MIGRATIONS, ROOT, SRC, sourceFiles, tablesTouched } from "./sourceScan.js"
import { ACTOR_COMPONENTS, KNOWN_REMAINING, SHARED_STATEMENTS, TABLE_OWNERS } from "./tableOwners.js"
import * as path from "node:path"

const tables = createdTables()
const migrations = path.relative(ROOT, MIGRATIONS).split(path.sep).join("/")
const touches = [...sourceFiles(SRC), ...sourceFiles(ACTORS)]
  .filter((file) => !file.startsWith(`${migrations}/`))
  .map((file) => ({ file, component: componentOf(file) ?? ACTOR_COMPONENTS[file], tables: [...tablesTouched(file, tables)].sort() }))
  .filter((entry) => entry.tables.length > 0)

const allowed = (entries: typeof SHARED_STATEMENTS) => new Set(entries.flatMap((entry) => entry.tables.map((table) => `${entry.file} ${table}`)))
const shared = allowed(SHARED_STATEMENTS)
const remaining = allowed(KNOWN_REMAINING)

describe("table ownership", () => {
  it("finds the tables of the migrations and the SQL of the owners (the scan sees what it must)", () => {
    expect(tables.size).toBeGreaterThan(30)
    expect(touches.find((entry) => entry.file === "src/pipeline/transactionRepo.ts")?.tables).toContain("transactions")
    expect(touches.find((entry) => entry.file === "src/wallet/walletRepo.ts")?.tables).toEqual(["wallets"])
  })

  it("gives every table of the migrations an owner that is a component", () => {
    const components = new Set(sourceFiles(SRC).map(componentOf).filter((component) => component !== undefined))
    for (const table of tables) {
      expect(TABLE_OWNERS[table], `table ${table} has no owner in test/architecture/tableOwners.ts`).toBeDefined()
      expect(components, `owner of ${table}`).toContain(TABLE_OWNERS[table])
    }
    expect(Object.keys(TABLE_OWNERS).filter((table) => !tables.has(table))).toEqual([])
  })

  it("knows the component of every file that names a table (actors are assigned in ACTOR_COMPONENTS)", () => {
    expect(touches.filter((entry) => entry.component === undefined).map((entry) => entry.file)).toEqual([])
  })

  it("names a table in SQL only inside its owner, or in a documented shared statement of the owner", () => {
    const foreign = touches.flatMap(({ file, component, tables: named }) =>
      named.filter((table) => TABLE_OWNERS[table] !== component).map((table) => `${file} ${table}`)
    )
    expect(foreign.filter((entry) => !shared.has(entry) && !remaining.has(entry))).toEqual([])
  })

  it("keeps each shared statement inside the owner of the statement's own table", () => {
    for (const entry of SHARED_STATEMENTS) {
      const touched = touches.find((touch) => touch.file === entry.file)
      expect(touched, `${entry.file} no longer names these tables: drop the exception`).toBeDefined()
      // The file's own component owns at least one table it writes or reads there.
      expect(touched!.tables.some((table) => TABLE_OWNERS[table] === touched!.component), entry.file).toBe(true)
      for (const table of entry.tables) expect(touched!.tables, `${entry.file}: exception for ${table} is stale`).toContain(table)
    }
  })

  it("lists as known remaining only statements that still exist (the list only shrinks)", () => {
    for (const entry of KNOWN_REMAINING) {
      const touched = touches.find((touch) => touch.file === entry.file)?.tables ?? []
      for (const table of entry.tables) expect(touched, `${entry.file} no longer names ${table}: remove it from KNOWN_REMAINING`).toContain(table)
    }
  })
})
