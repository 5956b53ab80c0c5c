/**
 * The built service's own code cache (issue 35: restart to /health within 1 s). Node's compile cache
 * (compileCache.ts) keeps what V8 compiled of a module right after compiling it, before it ran: its top level.
 * Every function a start then calls (about 4,600 of them) was compiled again at every start, lazily, on the
 * main thread. So the build makes the service one CommonJS bundle (dist/service.cjs, scripts/build.ts), and
 * the build's entry (serviceLoader.ts) compiles it here with `vm.Script` and a code cache made *after* it
 * ran (`createCachedData`), which holds every function compiled by then: the start's and the first requests'.
 *
 * V8 checks a code cache against the source's length only, and runs what it holds. So the file is named by a
 * CRC-32 of the bundle's text (a rebuilt bundle of the same length never meets an old cache) and carries a
 * CRC-32 of its own bytes (a garbled file never reaches V8), as Node's compile cache does for its entries. It
 * lives in the compile cache's folder, which compileCache.ts allows only when no one but the service's user
 * can write it, and is replaced by rename, so a reader never sees half a file.
 */
import * as fs from "node:fs"
import Module from "node:module"
import * as path from "node:path"
import * as vm from "node:vm"
import * as zlib from "node:zlib"

/** What the cache file starts with, then the CRC-32 of the cached data (both 4 bytes). */
const MAGIC = Buffer.from("ACC1")
const HEADER_BYTES = 8

export type CodeCacheStatus =
  /** V8 took the cache: the functions it holds are not compiled again. */
  | "accepted"
  /** V8 refused it (another Node.js version or V8 flags): compiled as without one, and written anew. */
  | "rejected"
  /** The file is not one this module wrote whole (its check failed): not given to V8. */
  | "damaged"
  /** No cache for this bundle yet, or no folder for one. */
  | "none"

export interface CompiledBundle {
  readonly status: CodeCacheStatus
  /** Runs the bundle as the CommonJS module it is (its own `require`, `module`, `__filename`); its exports. */
  readonly run: () => unknown
  /**
   * Writes the cache of what V8 has compiled of the bundle so far and removes the caches of other bundles;
   * nothing without a folder. Never throws: a start goes on without a cache.
   */
  readonly write: () => void
}

const crc32 = (data: string | Uint8Array) => zlib.crc32(data).toString(16).padStart(8, "0")

/** The cache file of a bundle's text (or its UTF-8 bytes: the same name), for this Node.js (whose V8 would refuse another's cache anyway). */
export const cacheFileName = (source: string | Uint8Array) => `service-${crc32(source)}-${process.version}-${process.arch}.cache`

/** The cached data of `file` when it is whole (its CRC-32 matches), "damaged" when not, undefined when absent. */
const readCache = (file: string): Buffer | "damaged" | undefined => {
  let bytes: Buffer
  try {
    bytes = fs.readFileSync(file)
  } catch {
    return undefined
  }
  const data = bytes.subarray(HEADER_BYTES)
  const whole = bytes.length > HEADER_BYTES && bytes.subarray(0, 4).equals(MAGIC) && bytes.readUInt32BE(4) === zlib.crc32(data)
  return whole ? data : "damaged"
}

const writeCache = (directory: string, name: string, data: Buffer) => {
  const header = Buffer.alloc(HEADER_BYTES)
  MAGIC.copy(header)
  header.writeUInt32BE(zlib.crc32(data), 4)
  const temporary = path.join(directory, `${name}.${process.pid}.tmp`)
  fs.writeFileSync(temporary, Buffer.concat([header, data]), { mode: 0o600 })
  fs.renameSync(temporary, path.join(directory, name))
  // the caches of earlier builds (and temporary files of processes that died writing) would only take space
  for (const entry of fs.readdirSync(directory)) {
    if (entry !== name && entry.startsWith("service-")) fs.rmSync(path.join(directory, entry), { force: true })
  }
}

/** Compiles the CommonJS bundle `file` with the code cache of `directory` (none when undefined). */
export const compileWithCodeCache = (file: string, directory: string | undefined): CompiledBundle => {
  // the CRC-32 of the file's bytes, then their text: zlib's CRC of the 6.6 MB text encodes it first (20-30 ms
  // of a restart against about 1 for the bytes), and reading the file as bytes is the cheaper read too
  const bytes = fs.readFileSync(file)
  const name = cacheFileName(bytes)
  const source = bytes.toString("utf8")
  const cached = directory === undefined ? undefined : readCache(path.join(directory, name))
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    ...(cached instanceof Buffer ? { cachedData: cached } : {}),
    // an import() left in the bundle resolves as the service's own would
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const status: CodeCacheStatus = cached === undefined ? "none" : cached === "damaged" ? "damaged" : script.cachedDataRejected === true ? "rejected" : "accepted"
  return {
    status,
    run: () => {
      const bundle = new Module(file)
      bundle.filename = file
      const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void
      wrapper.call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, path.dirname(file))
      return bundle.exports
    },
    write: () => {
      if (directory === undefined) return
      try {
        writeCache(directory, name, script.createCachedData())
      } catch {
        // a full disk or a folder gone: the next start compiles as without a cache
      }
    }
  }
}
