/**
 * Builds the console (Vite) into console/dist. `--if-stale` builds only when the sources changed since
 * the last build (a hash of them is kept in dist/.source-hash), so `npm start` (prestart) and the
 * browser tests can call it every time. Without Vite installed (a production install without dev
 * dependencies) it says so and leaves the gateway to answer 503 at /console.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const CONSOLE_DIR = fileURLToPath(new URL(".", import.meta.url))
const DIST_DIR = path.join(CONSOLE_DIR, "dist")
const HASH_FILE = path.join(DIST_DIR, ".source-hash")
const INPUTS = ["index.html", "vite.config.ts", "src"]

const filesUnder = (entry: string): Array<string> => {
  const full = path.join(CONSOLE_DIR, entry)
  if (!fs.existsSync(full)) return []
  if (!fs.statSync(full).isDirectory()) return [entry]
  return fs.readdirSync(full).sort().flatMap((name) => filesUnder(path.join(entry, name)))
}

/** A hash of every source file's path and bytes (mtimes change on checkout; contents do not). */
export const sourceHash = (): string => {
  const hash = createHash("sha256")
  for (const file of INPUTS.flatMap(filesUnder)) hash.update(file).update("\0").update(fs.readFileSync(path.join(CONSOLE_DIR, file))).update("\0")
  return hash.digest("hex")
}

export const isStale = (): boolean =>
  !fs.existsSync(path.join(DIST_DIR, "index.html")) || !fs.existsSync(HASH_FILE) || fs.readFileSync(HASH_FILE, "utf8") !== sourceHash()

/** Builds when stale (or always with force); resolves to whether it built. */
export const buildConsole = async (options: { force?: boolean } = {}): Promise<boolean> => {
  if (options.force !== true && !isStale()) return false
  const hash = sourceHash()
  const { build } = await import("vite")
  await build({ configFile: path.join(CONSOLE_DIR, "vite.config.ts") })
  fs.writeFileSync(HASH_FILE, hash)
  return true
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain) {
  const ifStale = process.argv.includes("--if-stale")
  buildConsole({ force: !ifStale }).then(
    (built) => console.log(built ? "console built into console/dist" : "console is up to date"),
    (error: unknown) => {
      const missingVite = error instanceof Error && /Cannot find (package|module) 'vite'/.test(error.message)
      console.error(missingVite ? "console not built: vite is not installed (dev dependencies); /console will answer 503" : error)
      // A stale console must not stop the service from starting; a forced build reports failure.
      process.exitCode = ifStale ? 0 : 1
    }
  )
}
