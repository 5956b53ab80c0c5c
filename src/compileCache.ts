/**
 * V8's compile cache for the service and the programs it starts (issue 35: restart to /health within 1 s). Without
 * one, every start compiles all of the build's modules and the npm packages' again; with one, a restart reads the
 * compiled code from disk (a restart on DATABASE_URL about 13% sooner on Node 24: docs/decisions/production.md,
 * "V8's compile cache"). The ledger, wallet-engine and MPC children share it (they inherit NODE_COMPILE_CACHE).
 *
 * It lives in DATA_DIR/compile-cache, kept with the service's data, and only a directory that no one but the
 * service's user can write is used: V8 runs the code it finds there, checked against nothing but a hash of the
 * source, so a directory others can write would let them run code in the process that holds the keys. Such a
 * directory is refused (the start goes on without a cache, with a warning). Node's own settings come first:
 * NODE_COMPILE_CACHE names another directory (the operator's choice), NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 * Node 20 has no compile cache (`module.enableCompileCache` is 22.1's): nothing happens there.
 */
import * as fs from "node:fs"
import * as nodeModule from "node:module"
import * as path from "node:path"
import { DEFAULT_DATA_DIR } from "./dataDir.js"
import { formatStartupLines, logFormatOf, warningLine } from "./observability/startupLines.js"

/** Node's compile cache API (22.1 and 22.10); @types/node 20 does not describe it. */
interface CompileCacheApi {
  readonly enableCompileCache?: (directory: string) => { readonly status: number; readonly message?: string }
  readonly flushCompileCache?: () => void
  readonly constants?: { readonly compileCacheStatus?: { readonly FAILED: number } }
}
const api = nodeModule as unknown as CompileCacheApi

/** The cache's folder under DATA_DIR. */
export const COMPILE_CACHE_FOLDER = "compile-cache"

export type CompileCacheOutcome =
  | { readonly _tag: "On"; readonly directory: string }
  /** NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE is set: Node applied it before any module loaded. */
  | { readonly _tag: "NodeSettings" }
  | { readonly _tag: "Unsupported" }
  | { readonly _tag: "Refused"; readonly warning: string }

/** Why `stat` (an lstat) may not hold code this process runs, or undefined when only user `uid` can write it. */
export const unsafeCacheDirectory = (stat: fs.Stats, uid: number | undefined): string | undefined => {
  if (!stat.isDirectory()) return "is not a directory"
  if (uid !== undefined && stat.uid !== uid) return `belongs to user ${stat.uid}, not to the service's user (${uid})`
  if ((stat.mode & 0o022) !== 0) return `can be written by others than its owner (mode ${(stat.mode & 0o777).toString(8)})`
  return undefined
}

const refused = (directory: string, reason: string): CompileCacheOutcome => ({
  _tag: "Refused",
  warning: `V8's compile cache is off: ${directory} ${reason}; each start compiles every module again (make it the service user's alone, mode 700, or remove it)`
})

/** Turns the compile cache on in DATA_DIR (of `env`), for this process and the programs it starts later. */
export const enableCompileCache = (env: NodeJS.ProcessEnv): CompileCacheOutcome => {
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return { _tag: "NodeSettings" }
  if (api.enableCompileCache === undefined) return { _tag: "Unsupported" }
  const directory = path.resolve(env.DATA_DIR ?? DEFAULT_DATA_DIR, COMPILE_CACHE_FOLDER)
  try {
    fs.mkdirSync(path.dirname(directory), { recursive: true })
    if (!fs.existsSync(directory)) fs.mkdirSync(directory, { mode: 0o700 })
    const unsafe = unsafeCacheDirectory(fs.lstatSync(directory), process.getuid?.())
    if (unsafe !== undefined) return refused(directory, unsafe)
    const enabled = api.enableCompileCache(directory)
    if (enabled.status === api.constants?.compileCacheStatus?.FAILED) return refused(directory, `could not be used (${enabled.message ?? "no reason given"})`)
  } catch (error) {
    return refused(directory, `could not be used (${error instanceof Error ? error.message : String(error)})`)
  }
  env.NODE_COMPILE_CACHE = directory
  return { _tag: "On", directory }
}

/** Turns the compile cache on as `enableCompileCache` does, and says on stderr why when a folder was refused. */
export const startCompileCache = (env: NodeJS.ProcessEnv): CompileCacheOutcome => {
  const outcome = enableCompileCache(env)
  if (outcome._tag === "Refused") console.error(formatStartupLines(logFormatOf(env.LOG_FORMAT), [warningLine(outcome.warning)]))
  return outcome
}

/**
 * The folder the built service's own code cache may use (serviceCodeCache.ts): the compile cache's, checked
 * above, or the one the operator gave Node.js; none where the compile cache is off, refused or unsupported.
 */
export const serviceCodeCacheDirectory = (outcome: CompileCacheOutcome, env: NodeJS.ProcessEnv): string | undefined =>
  outcome._tag === "On" ? outcome.directory : outcome._tag === "NodeSettings" && env.NODE_DISABLE_COMPILE_CACHE === undefined ? env.NODE_COMPILE_CACHE : undefined

/** Writes what was compiled so far to the cache (Node writes it at a clean exit otherwise); a no-op without one. */
export const flushCompileCache = () => api.flushCompileCache?.()
