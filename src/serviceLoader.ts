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
import { compileWithCodeCache } from "./serviceCodeCache.js"

/**
 * When the code cache is written: once the start and its first requests are compiled (so a process killed
 * later leaves one), then at a clean exit with everything compiled until then.
 */
const WRITE_AFTER_MS = 10_000

/** NODE_DEBUG=code-cache tells how the bundle was compiled and when its cache is written. */
const debug = debuglog("code-cache")

const compileCache = startCompileCache(process.env)
const bundle = compileWithCodeCache(path.join(path.dirname(fileURLToPath(import.meta.url)), SERVICE_BUNDLE), serviceCodeCacheDirectory(compileCache, process.env))
debug("%s compiled, code cache: %s", SERVICE_BUNDLE, bundle.status)
const write = (when: string) => () => {
  bundle.write()
  debug("%s: code cache written (%s)", SERVICE_BUNDLE, when)
}
setTimeout(write("after the start"), WRITE_AFTER_MS).unref()
process.once("exit", write("at exit"))
bundle.run()
