/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) kept under DATA_DIR, served on a
 * loopback socket so the service uses the very same `@effect/sql-pg` client as against a real server.
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect } from "effect"
import * as fs from "node:fs"

export interface EmbeddedDatabase {
  readonly host: string
  readonly port: number
}

/**
 * Opens PGlite in `dataDir` (or in memory when null) and serves it on 127.0.0.1 at a free port.
 * The socket server queues at the query level, so the client must use exactly one connection
 * (transactions of two connections would interleave).
 */
export const startEmbeddedDatabase = (dataDir: string | null) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        if (dataDir !== null) fs.mkdirSync(dataDir, { recursive: true })
        const db = dataDir === null ? new PGlite() : new PGlite(dataDir)
        await db.waitReady
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 16 })
        await server.start()
        const [host, port] = server.getServerConn().split(":")
        return { db, server, address: { host, port: Number(port) } satisfies EmbeddedDatabase }
      },
      catch: (cause) => new Error(`could not start the embedded database: ${String(cause)}`)
    }).pipe(Effect.orDie),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
      })
  ).pipe(Effect.map(({ address }) => address))
