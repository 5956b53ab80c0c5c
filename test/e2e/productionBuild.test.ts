/**
 * The production build (issue 35): `npm run build` writes dist/, and the service started as
 * `npm run start:prod` starts it (with its own local ledger, as a production process on one machine would
 * without CHAIN_RPC_URL) runs plain JavaScript: no TypeScript loader in the service or in its ledger child,
 * and no import of TypeScript tooling anywhere in the build. A transfer confirms through it. Its start keeps V8's
 * compile cache in DATA_DIR where Node.js has one (src/compileCache.ts), with the service's own code cache
 * beside it (src/serviceCodeCache.ts), and refuses a cache folder others can write.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import type { DefiApi } from "../../schemas/api/defi.js"
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WalletsApi } from "../../schemas/api/wallets.js"
import type { WireDataOf } from "../support/client.js"
import { freePortPair } from "../support/freePort.js"
import { buildOnceForThisRun } from "../support/serviceBuild.js"
import { commandLineOf, descendantsOf } from "../support/processTree.js"
import {
  call,
  createFundedWallet,
  createPostgresDatabase,
  type FreshDatabase,
  PROJECT_ROOT,
  SERVICE_API_KEY,
  SERVICE_NODE,
  type ServiceProcess,
  startServiceProcess,
  tempDir
} from "../support/processes.js"

const TOOLING = /\b(tsx|typescript|esbuild|vite|vitest|ts-node)\b/

/** Whether the system's library path holds jemalloc (Debian's and Ubuntu's libjemalloc2 on the usual architectures). */
const JEMALLOC_INSTALLED = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"].some((dir) =>
  fs.existsSync(path.join(dir, "libjemalloc.so.2"))
)
const environmentOf = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter((part) => part !== "")

/** The specifiers the build's JavaScript imports or requires that name a package (not a file of the build). */
const packageImports = (dir: string): Set<string> => {
  const specifiers = new Set<string>()
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!/\.c?js$/.test(file)) continue
    const text = fs.readFileSync(path.join(dir, file), "utf8")
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\(\s*)"([^".][^"]*)"/g)) specifiers.add(match[1]!)
  }
  return specifiers
}

/** The packages a process preloaded with test/support/requireRecorder.cjs has required so far. */
const requiredPackages = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "") : [])

/** The service's code cache files in a compile cache folder (src/serviceCodeCache.ts). */
const serviceCodeCaches = (cacheDir: string) => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((entry) => entry.startsWith("service-")) : [])

/** How the build's loader compiled the service (NODE_DEBUG=code-cache): "none", "accepted", "damaged" or "rejected". */
const codeCacheStatus = (output: string) => /CODE-CACHE \d+: service\.cjs compiled, code cache: (\w+)/.exec(output)?.[1]

/** The tools an MCP `tools/list` over HTTP names (the MCP SDK is a chunk of the build loaded on first use). */
const mcpToolNames = async (baseUrl: string) => {
  const listed = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: { "x-api-key": SERVICE_API_KEY, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
  })
  expect(listed.status).toBe(200)
  return ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name)
}

/** Whether SERVICE_NODE has a compile cache (Node.js 22.1 and later), asked of that binary itself. */
const compileCacheSupported =
  execFileSync(SERVICE_NODE, ["-p", "typeof require('node:module').enableCompileCache"], { encoding: "utf8" }).trim() === "function"

let database: FreshDatabase | undefined
let service: ServiceProcess | undefined
let ledgerPort: number | undefined
const dataDir = tempDir("custody-built-")

afterAll(async () => {
  await service?.stop(5_000)
  await database?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("the production build", () => {
  it("builds, starts with no TypeScript loader (service and ledger child) and confirms a transfer", async () => {
    // `npm run build`, run once for the whole test run (every service process of the tests starts from it)
    await buildOnceForThisRun()
    const manifest = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    // Plain node with V8 flags on the build, jemalloc preloaded (the tests' service processes take the same flags and
    // setting from it)
    expect(manifest.scripts["start:prod"]).toMatch(/^LD_PRELOAD=libjemalloc\.so\.2 node( --[\w-]+=\d+)* dist\/main\.js$/)
    for (const program of ["main", "ledger", "mcp", "wallet-engine", "mpc-node", "kms-rotate"]) {
      expect(fs.existsSync(path.join(PROJECT_ROOT, "dist", `${program}.js`)), program).toBe(true)
    }
    // the service itself: one CommonJS bundle, which dist/main.js compiles with its code cache
    expect(fs.existsSync(path.join(PROJECT_ROOT, "dist", "service.cjs"))).toBe(true)
    // ASCII only, so V8 keeps its source one byte a character (a comment's curly quote made it two)
    const serviceBundle = fs.readFileSync(path.join(PROJECT_ROOT, "dist", "service.cjs"))
    expect(serviceBundle.every((byte) => byte < 0x80)).toBe(true)
    // the platform's modules the service uses, not its index: that would bring the cluster, RPC and worker modules
    // into the start (esbuild evaluates a dynamically imported module's every re-export)
    expect(serviceBundle.toString("latin1").match(/^\/\/ node_modules\/@effect\/(cluster|rpc|workflow)\/.*$/gm) ?? []).toEqual([])
    // nor @effect/platform's index, whose every module (MsgPack loading msgpackr from node_modules) ran at each start
    expect(serviceBundle.toString("latin1").match(/^\/\/ node_modules\/@effect\/platform\/dist\/esm\/(index|MsgPack)\.js$/gm) ?? []).toEqual([])
    const imported = [...packageImports(path.join(PROJECT_ROOT, "dist"))]
    expect(imported.filter((specifier) => TOOLING.test(specifier))).toEqual([])
    // Effect is bundled (only the modules the service uses are loaded), so no chunk imports it from node_modules
    expect(imported.filter((specifier) => /^(effect|@effect\/)/.test(specifier))).toEqual([])
    expect(imported).toContain("pg")

    database = await createPostgresDatabase()
    ledgerPort = await freePortPair()
    service = await startServiceProcess({ built: true, databaseUrl: database.url, dataDir, env: { LEDGER_PORT: String(ledgerPort), NODE_DEBUG: "code-cache" } })
    // a first start: no code cache of the service yet
    expect(codeCacheStatus(service.output())).toBe("none")

    const processes = [service.pid, ...descendantsOf(service.pid)]
    const commandLines = processes.map(commandLineOf)
    // The service and its ledger child, each node running a file of dist/ and nothing else.
    expect(commandLines.map((argv) => argv.find((arg) => arg.endsWith(".js")))).toEqual([
      "dist/main.js",
      path.join(PROJECT_ROOT, "dist", "ledger.js")
    ])
    for (const [index, argv] of commandLines.entries()) {
      // the node binary the service was started with (SERVICE_NODE: CI's PostgreSQL pass runs it on Node.js 24)
      expect(argv[0], argv.join(" ")).toBe(SERVICE_NODE)
      expect(argv.filter((arg) => /^--(import|require|loader|experimental-loader)\b|^-r$/.test(arg) || TOOLING.test(arg)), argv.join(" ")).toEqual([])
      const environment = environmentOf(processes[index]!)
      expect(environment.filter((entry) => entry.startsWith("NODE_OPTIONS="))).toEqual([])
    }
    // jemalloc, which start:prod preloads, is the service's allocator wherever the machine has it (Debian's
    // libjemalloc2; .ci/run installs it); without it the linker says so once and glibc's malloc serves
    expect(environmentOf(service.pid)).toContain("LD_PRELOAD=libjemalloc.so.2")
    if (JEMALLOC_INSTALLED) expect(fs.readFileSync(`/proc/${service.pid}/maps`, "utf8")).toMatch(/\/libjemalloc\.so\.2$/m)

    // V8's compile cache: in DATA_DIR, the service user's alone, written once the start is done (not only at
    // exit), and the ledger child's too; nothing where Node.js has none (20).
    const cacheDir = path.join(dataDir, "compile-cache")
    if (compileCacheSupported) {
      expect((fs.statSync(cacheDir).mode & 0o777).toString(8)).toBe("700")
      expect(fs.readdirSync(cacheDir, { recursive: true }).length).toBeGreaterThan(0)
      expect(environmentOf(processes[1]!)).toContain(`NODE_COMPILE_CACHE=${cacheDir}`)
    } else {
      expect(fs.existsSync(cacheDir)).toBe(false)
    }

    const wallet = await createFundedWallet(service.baseUrl, 1_000_000_000)
    const transfer = await call<WireDataOf<typeof TransactionsApi.create>>(service.baseUrl, "POST", "/api/v1/transactions?waitMs=30000", {
      walletId: wallet.id,
      type: "transfer_sol",
      protocol: "system-program",
      intent: { destination: "11111111111111111111111111111112", lamports: 1_000_000 }
    })
    expect(transfer.status).toBe(201)
    expect(transfer.body.data.status).toBe("confirmed")
    const proof = await call(service.baseUrl, "GET", `/api/v1/transactions/${transfer.body.data.id}/proof`)
    expect(proof.status).toBe(200)

    // A swap on the local pools: the token program's instructions and accounts (spl-token, in the bundle) and the
    // exact quoted output in the wallet.
    const pools = (await call<WireDataOf<typeof DefiApi.pools>>(service.baseUrl, "GET", "/api/v1/defi/pools")).body.data.pools
    const mint = (symbol: string) => pools.flatMap((pool) => [pool.mintA, pool.mintB]).find((m) => m.symbol === symbol)!.address
    const preview = await call<WireDataOf<typeof DefiApi.swap>>(service.baseUrl, "POST", "/api/v1/defi/swap", {
      protocol: "dex-aggregator", inputMint: mint("SOL"), outputMint: mint("USDC"), amount: "100000000", wallet: wallet.publicKey, slippageBps: 100
    })
    expect(preview.status).toBe(200)
    const swapped = await call<WireDataOf<typeof TransactionsApi.create>>(service.baseUrl, "POST", "/api/v1/transactions?waitMs=30000", preview.body.data.execute.body)
    expect(swapped.body.data.status).toBe("confirmed")
    const tokens = (await call<WireDataOf<typeof WalletsApi.tokens>>(service.baseUrl, "GET", `/api/v1/wallets/${wallet.id}/tokens`)).body.data.tokens
    expect(tokens.find((token) => token.mint === mint("USDC"))?.amount).toBe(preview.body.data.quote.outAmount)

    // the metrics (prom-client, in the bundle) count what was confirmed
    const metrics = await fetch(`${service.baseUrl}/metrics`, { headers: { "x-api-key": SERVICE_API_KEY } })
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toMatch(/^custody_\w+/m)

    // MCP over HTTP: the SDK loads with the first exchange, not with the start (the last test).
    expect(await mcpToolNames(service.baseUrl)).toContain("tx_create")

    // An off-chain message: @solana/kit's envelope loads with the first message signed.
    const signed = await call(service.baseUrl, "POST", `/api/v1/wallets/${wallet.id}/sign`, { message: Buffer.from("signed by the build").toString("base64") })
    expect(signed.status).toBe(200)
  }, 180_000)

  it("restarts with the service's code cache written at its stop, and on a damaged cache: damaged entries are compiled again (a module loaded later too) and written anew", async () => {
    await service!.stop(5_000)
    const cacheDir = path.join(dataDir, "compile-cache")
    const restart = () => startServiceProcess({ built: true, databaseUrl: database!.url, dataDir, env: { LEDGER_PORT: String(ledgerPort), NODE_DEBUG: "code-cache" } })
    // written at the stop (a clean exit), taken by V8 at the restart
    expect(serviceCodeCaches(cacheDir).length).toBe(compileCacheSupported ? 1 : 0)
    service = await restart()
    expect(codeCacheStatus(service.output())).toBe(compileCacheSupported ? "accepted" : "none")
    await service.stop(5_000)

    const entries = compileCacheSupported ? fs.readdirSync(cacheDir, { recursive: true, encoding: "utf8" }).map((entry) => path.join(cacheDir, entry)).filter((file) => fs.statSync(file).isFile()) : []
    expect(entries.length > 0).toBe(compileCacheSupported)
    // every entry overwritten with noise of its own length (a disk that garbled them)
    for (const file of entries) fs.writeFileSync(file, Buffer.alloc(fs.statSync(file).size, 0x5a))
    service = await restart()
    expect(codeCacheStatus(service.output())).toBe(compileCacheSupported ? "damaged" : "none")
    expect((await fetch(`${service.baseUrl}/health`)).status).toBe(200)
    const wallets = await call(service.baseUrl, "GET", "/api/v1/wallets")
    expect(wallets.status).toBe(200)
    // MCP's SDK, a package loaded on first use, from a damaged entry too
    expect(await mcpToolNames(service.baseUrl)).toContain("tx_create")
    // what this start compiled is written over the noise (modules it never loaded keep theirs until one does)
    const rewritten = entries.filter((file) => !fs.readFileSync(file).every((byte) => byte === 0x5a))
    expect(rewritten.length > 0).toBe(compileCacheSupported)
    // and the service's code cache is whole again once it stopped: the next start takes it
    await service.stop(5_000)
    service = await restart()
    expect(codeCacheStatus(service.output())).toBe(compileCacheSupported ? "accepted" : "none")
    expect((await fetch(`${service.baseUrl}/health`)).status).toBe(200)
  }, 180_000)

  it("refuses a compile cache folder that others can write: it starts without one and says why", async () => {
    const openDataDir = tempDir("custody-built-open-cache-")
    const cacheDir = path.join(openDataDir, "compile-cache")
    fs.mkdirSync(cacheDir)
    fs.chmodSync(cacheDir, 0o777)
    // the first test's database and ledger child
    const opened = await startServiceProcess({ built: true, databaseUrl: database!.url, dataDir: openDataDir, rpcUrl: `http://127.0.0.1:${ledgerPort!}` })
    try {
      expect((await fetch(`${opened.baseUrl}/health`)).status).toBe(200)
      expect(opened.output().includes(`V8's compile cache is off: ${cacheDir} can be written by others than its owner (mode 777)`)).toBe(compileCacheSupported)
      expect(fs.readdirSync(cacheDir)).toEqual([])
    } finally {
      await opened.stop(5_000)
      fs.rmSync(openDataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("restarts the lean profile (start:prod:lean, V8's memory saver) from the service's code cache too", async () => {
    // V8 stamps a code cache with its flags: the memory saver's flag, set after the bundle compiled, made every
    // restart of this profile refuse the cache its last run wrote
    const leanDataDir = tempDir("custody-built-lean-")
    const start = () =>
      startServiceProcess({ built: true, script: "start:prod:lean", databaseUrl: database!.url, dataDir: leanDataDir, rpcUrl: `http://127.0.0.1:${ledgerPort!}`, env: { NODE_DEBUG: "code-cache" } })
    try {
      const first = await start()
      expect(codeCacheStatus(first.output())).toBe("none")
      await first.stop(5_000)
      const restarted = await start()
      try {
        expect(codeCacheStatus(restarted.output())).toBe(compileCacheSupported ? "accepted" : "none")
        expect((await fetch(`${restarted.baseUrl}/health`)).status).toBe(200)
      } finally {
        await restarted.stop(5_000)
      }
    } finally {
      fs.rmSync(leanDataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("loads at start none of the packages that only some requests need, and never fast-check", async () => {
    const recordDir = tempDir("custody-built-requires-")
    const recorded = path.join(recordDir, "required.txt")
    // the first test's database and ledger child; the process records every package it requires
    const recording = await startServiceProcess({
      built: true,
      databaseUrl: database!.url,
      dataDir: recordDir,
      rpcUrl: `http://127.0.0.1:${ledgerPort!}`,
      nodeArgs: ["--require", path.join(PROJECT_ROOT, "test/support/requireRecorder.cjs")],
      env: { REQUIRED_PACKAGES_FILE: recorded }
    })
    try {
      expect((await fetch(`${recording.baseUrl}/health`)).status).toBe(200)
      const atStart = requiredPackages(recorded)
      // What the start does load from node_modules: native addons (bigint-buffer's binding, for spl-token); the
      // database driver, web3.js, spl-token and undici are in the service's bundle (compiled with its code cache),
      // not required file by file (scripts/build.ts). The PKCS#11 binding loads only when an HSM token is opened,
      // and msgpackr (@effect/platform's MsgPack) not at all.
      expect(atStart).toContain("bigint-buffer")
      expect(atStart.filter((specifier) => /^(pkcs11js|msgpackr)(\/|$)/.test(specifier))).toEqual([])
      expect(atStart.filter((specifier) => /^(pg|pg-pool|ws|@solana\/(web3\.js|spl-token)|undici|prom-client|uuid)(\/|$)/.test(specifier))).toEqual([])
      // MCP's SDK, @solana/kit (off-chain messages) and x402's client load on first use; fast-check (Effect's arbitraries) never.
      expect(atStart.filter((specifier) => /^(@modelcontextprotocol\/|@solana\/kit|@x402\/|fast-check)/.test(specifier))).toEqual([])

      expect(await mcpToolNames(recording.baseUrl)).toContain("tx_create")
      const wallet = await createFundedWallet(recording.baseUrl, 1_000_000_000)
      const signed = await call(recording.baseUrl, "POST", `/api/v1/wallets/${wallet.id}/sign`, { message: Buffer.from("signed by the build").toString("base64") })
      expect(signed.status).toBe(200)
      expect(requiredPackages(recorded)).toEqual(expect.arrayContaining(["@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js", "@solana/kit"]))
    } finally {
      await recording.stop(5_000)
      fs.rmSync(recordDir, { recursive: true, force: true })
    }
    expect([...packageImports(path.join(PROJECT_ROOT, "dist"))]).toEqual(expect.arrayContaining(["@solana/kit", "@x402/svm/exact/v1/client"]))
    expect([...packageImports(path.join(PROJECT_ROOT, "dist"))]).not.toContain("fast-check")
  }, 120_000)
})
