/**
 * Entry point of the sources (`npm start`, and the tests' service processes). It turns V8's compile cache on
 * before any of the service's modules is read, so that a restart reads their compiled code from DATA_DIR
 * instead of compiling them all again (compileCache.ts), then loads the start itself (startService.ts). The
 * build's entry, dist/main.js, is serviceLoader.ts.
 */
import { startCompileCache } from "./compileCache.js"
import { applyMemorySaver } from "./observability/memorySaver.js"

// Before anything is compiled: V8 refuses a code cache made under other flags (observability/memorySaver.ts).
applyMemorySaver(process.env)
startCompileCache(process.env)

await import("./startService.js")
