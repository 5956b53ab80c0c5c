/** The PostgreSQL server the benchmarks create their databases on. */
import * as fs from "node:fs"
import * as path from "node:path"
import { postgresAdminUrl } from "../../test/support/processes.js"

const LOCAL_SOCKET_DIR = "/var/run/postgresql"

/**
 * TEST_DATABASE_URL when set; otherwise the machine's PostgreSQL over its Unix socket when there is one
 * (as psql connects by default, and as a service on the database's host would), else over TCP.
 */
export const benchPostgresUrl = () => {
  if ((process.env.TEST_DATABASE_URL ?? "").trim() !== "") return postgresAdminUrl()
  return fs.existsSync(path.join(LOCAL_SOCKET_DIR, ".s.PGSQL.5432"))
    ? `postgres://postgres@localhost/postgres?host=${LOCAL_SOCKET_DIR}`
    : postgresAdminUrl()
}
