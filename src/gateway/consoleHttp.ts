/**
 * The operator console's static files (GET /console, /console/*), built by Vite into console/dist
 * (console/build.ts). The page and its assets need no key: everything it shows comes from the API,
 * called with the key the operator logs in with. A strict Content-Security-Policy keeps the page to
 * its own origin (no CDN, no inline script).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { NotFound } from "../../schemas/errors.js"
import { projectPath } from "../entryPoints.js"
import { route } from "./route.js"
import { ConsoleApi } from "../../schemas/api/console.js"

export const CONSOLE_PREFIX = "/console"

// With its trailing separator, so the containment check below cannot match a sibling folder.
const DIST_DIR = projectPath("console", "dist") + path.sep

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json"
}

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

/** True for the console's paths, which need no key (server.ts). */
export const isConsolePath = (pathname: string) => pathname === CONSOLE_PREFIX || pathname.startsWith(CONSOLE_PREFIX + "/")

/** The file a request path names inside DIST_DIR; the page for anything that is not an asset, and
 *  undefined for a path that would leave the folder. */
const fileFor = (pathname: string): string | undefined => {
  let relative: string
  try {
    relative = decodeURIComponent(pathname.slice(CONSOLE_PREFIX.length)).replace(/^\/+/, "")
  } catch {
    return undefined
  }
  if (relative === "" || path.extname(relative) === "") relative = "index.html"
  const file = path.resolve(DIST_DIR, relative)
  return file.startsWith(DIST_DIR) ? file : undefined
}

const serve = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const pathname = new URL(request.url, "http://localhost").pathname
  const file = fileFor(pathname)
  const isPage = file !== undefined && path.basename(file) === "index.html"
  const bytes = file === undefined ? undefined : yield* Effect.promise(() => fs.readFile(file).catch(() => undefined))
  if (bytes === undefined) {
    if (isPage) {
      return { httpStatus: 503, data: null, failure: { errorCode: "PIPELINE_ERROR" as const, failedAt: "gateway" as const, message: "the console is not built: run `npm run console:build` (npm start builds it)" } }
    }
    return yield* Effect.fail(new NotFound({ resource: "console file", id: pathname }))
  }
  const hashedAsset = pathname.startsWith(`${CONSOLE_PREFIX}/assets/`)
  return HttpServerResponse.uint8Array(bytes, {
    status: 200,
    contentType: CONTENT_TYPES[path.extname(file!)] ?? "application/octet-stream",
    headers: { ...SECURITY_HEADERS, "cache-control": hashedAsset ? "public, max-age=31536000, immutable" : "no-cache" }
  })
})

export const consoleRoutes = [route(ConsoleApi.index, serve), route(ConsoleApi.file, serve)]
