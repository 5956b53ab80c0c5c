/**
 * The database of a test: a fresh PostgreSQL database on TEST_DATABASE_URL's server (the machine's,
 * or the embedded one test/support/globalDatabase.ts starts for the run), created here as a copy of the
 * run's migrated template, dropped after.
 */
import pg from "pg"
import { randomBytes } from "node:crypto"

export interface TestDatabase {
  /** DATABASE_URL for the service. */
  readonly url: string
  readonly drop: () => Promise<void>
}

export const createTestDatabase = async (): Promise<TestDatabase> => {
  const admin = process.env.TEST_DATABASE_URL
  if (admin === undefined || admin.trim() === "") {
    throw new Error("TEST_DATABASE_URL is unset: run the tests with vitest (its globalSetup starts an embedded PostgreSQL) or set it")
  }
  const name = `t_${randomBytes(6).toString("hex")}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  // A copy of the run's migrated template (globalDatabase.ts), else an empty database.
  const template = (process.env.TEST_TEMPLATE_DATABASE ?? "").trim()
  await client.query(template === "" ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`)
  await client.end()
  const url = new URL(admin)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: admin })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
    }
  }
}
