/**
 * Entry point (`npm start`, `npm run start:prod`). It turns V8's compile cache on before any of the service's
 * modules is read, so that a restart reads their compiled code from DATA_DIR instead of compiling them all
 * again (compileCache.ts), then loads the start itself (startService.ts).
 */
import { enableCompileCache } from "./compileCache.js"
import { formatStartupLines, logFormatOf, warningLine } from "./observability/startupLines.js"

const compileCache = enableCompileCache(process.env)
if (compileCache._tag === "Refused") {
  console.error(formatStartupLines(logFormatOf(process.env.LOG_FORMAT), [warningLine(compileCache.warning)]))
}

await import("./startService.js")
