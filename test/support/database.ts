/**
 * The database of a test: a fresh PostgreSQL database on TEST_DATABASE_URL's server when it is set
 * (created here, dropped after), else the embedded PGlite under the test's DATA_DIR.
 */
import pg from "pg"
import { randomBytes } from "node:crypto"

export interface TestDatabase {
  /** DATABASE_URL for the service, or undefined for the embedded PGlite. */
  readonly url: string | undefined
  readonly drop: () => Promise<void>
}

export const usingPostgres = () => (process.env.TEST_DATABASE_URL ?? "").trim() !== ""

export const createTestDatabase = async (): Promise<TestDatabase> => {
  const admin = process.env.TEST_DATABASE_URL
  if (admin === undefined || admin.trim() === "") return { url: undefined, drop: async () => {} }
  const name = `t_${randomBytes(6).toString("hex")}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`CREATE DATABASE ${name}`)
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
