/**
 * The project's programs (each a process of its own) and where their files are, whether this code runs
 * from its TypeScript sources (tsx, vitest) or from the build (`npm run build`: esbuild bundles in dist/,
 * whose import.meta.url is dist/... rather than src/...). Non-code files (console/dist, programs/dist) are
 * found from the project root, never relative to the running module, so both layouts find them.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/**
 * Each program's source entry; the build writes it to dist/<name>.js. The service's, `main`, is built in two
 * files: dist/main.js loads dist/service.cjs, the service as one CommonJS bundle (serviceLoader.ts).
 */
export const ENTRY_POINTS = {
  main: "src/main.ts",
  ledger: "src/ledger/main.ts",
  mcp: "src/mcp/main.ts",
  "wallet-engine": "src/wallet/engine/main.ts",
  "mpc-node": "src/wallet/mpc/nodeMain.ts",
  "kms-rotate": "src/wallet/kms/rotateCommand.ts"
} as const
export type EntryPoint = keyof typeof ENTRY_POINTS

/** The build's output folder, under the project root. */
export const BUILD_DIR = "dist"

/** The service's bundle in BUILD_DIR, which dist/main.js compiles with the service's code cache (serviceCodeCache.ts). */
export const SERVICE_BUNDLE = "service.cjs"

const findProjectRoot = (from: string): string => {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

const here = fileURLToPath(import.meta.url)

/** True when this process runs the build (JavaScript in dist/), false under a TypeScript loader. */
export const runningBuilt = /\.c?js$/.test(here)

export const PROJECT_ROOT = findProjectRoot(path.dirname(here))

/** A path under the project root (`projectPath("console", "dist")`). */
export const projectPath = (...segments: Array<string>) => path.join(PROJECT_ROOT, ...segments)

/**
 * Node's arguments that run `entry` as a child process the way this process runs (or as `built` says: the
 * tests run their children from the build): the built file with no loader when built, the source through
 * the tsx loader (resolved from this project) otherwise.
 */
export const nodeArgumentsFor = (entry: EntryPoint, built = runningBuilt): Array<string> =>
  built
    ? [projectPath(BUILD_DIR, `${entry}.js`)]
    : ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href, projectPath(ENTRY_POINTS[entry])]
