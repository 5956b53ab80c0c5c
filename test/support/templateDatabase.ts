/**
 * One database migrated once for the whole run, that each test file's database is copied from
 * (CREATE DATABASE ... TEMPLATE): migrating an empty database took most of a second, for every one of
 * the ~200 databases a pass creates. The service still runs its migrator at start (finding nothing to
 * do); the process tests (test/support/processes.ts) start from an empty database as a user does, so
 * migrating from nothing is still what they exercise.
 */
import { NodeContext } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { migrations } from "../../src/db/migrations/index.js"

const admin = async <A>(serverUrl: string, run: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** Creates and migrates the template on the server at `serverUrl`; answers its name and how to drop it. */
export const createTemplateDatabase = async (serverUrl: string) => {
  const name = `t_template_${randomBytes(6).toString("hex")}`
  await admin(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`))
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const migrated = PgMigrator.layer({ loader: migrations }).pipe(
    Layer.provide(NodeContext.layer),
    Layer.provide(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 }))
  )
  // Scoped: the migrator's connection is closed before any copy is made (a template must have none).
  await Effect.runPromise(Effect.scoped(Layer.build(migrated)))
  return {
    name,
    drop: () => admin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}
