/**
 * The build's entry, dist/main.js (`npm run start:prod`). It turns V8's compile cache on for the packages the
 * service loads (compileCache.ts), then compiles the service, built as one CommonJS bundle (dist/service.cjs,
 * scripts/build.ts), with its own code cache and runs it (serviceCodeCache.ts). `npm start` runs the sources
 * instead (main.ts).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { debuglog } from "node:util"
import { serviceCodeCacheDirectory, startCompileCache } from "./compileCache.js"
import { SERVICE_BUNDLE } from "./entryPoints.js"
import { applyMemorySaver } from "./observability/memorySaver.js"
import { compileWithCodeCache } from "./serviceCodeCache.js"

/**
 * When a start that found no cache it could use writes one: once the start and its first requests are
 * compiled, so that a process killed later still leaves one. Writing stops the event loop for a moment (about
 * 80 ms on a slow machine), so a start that found one only writes at its clean exit, with everything compiled
 * until then.
 */
const WRITE_AFTER_MS = 10_000

/** NODE_DEBUG=code-cache tells how the bundle was compiled and when its cache is written. */
const debug = debuglog("code-cache")

// Before anything is compiled: V8 refuses a code cache made under other flags (observability/memorySaver.ts).
applyMemorySaver(process.env)
const compileCache = startCompileCache(process.env)
const bundle = compileWithCodeCache(path.join(path.dirname(fileURLToPath(import.meta.url)), SERVICE_BUNDLE), serviceCodeCacheDirectory(compileCache, process.env))
debug("%s compiled, code cache: %s", SERVICE_BUNDLE, bundle.status)
const write = (when: string) => () => {
  const started = performance.now()
  bundle.write()
  debug("%s: code cache written %s in %d ms", SERVICE_BUNDLE, when, Math.round(performance.now() - started))
}
if (bundle.status !== "accepted") setTimeout(write("after the start"), WRITE_AFTER_MS).unref()
process.once("exit", write("at exit"))
bundle.run()
