/**
 * `npm run bench:runtime`: what Effect's own runtime costs per operation, on the version the service runs and,
 * beside it, on another copy of `effect` (EFFECT_COMPARE_DIR: the directory of `npm install --prefix <dir>
 * effect@4`, or the package's own). No database, no ledger: the pipeline spends about a quarter of its main
 * thread in Effect's fiber runtime (docs/benchmarks.md), and this measures that part alone.
 *
 * Workloads: a transfer-shaped program (a service lookup, six map/flatMap steps, two acquire/use/release
 * "statements" around an async boundary, an ensuring, a fork and join; 32 at a time), then each construct
 * alone, and the decoding of a confirmed transactions row by a Schema of its shape. The runtimes run in
 * alternating rounds in this one process; the median of the rounds is printed.
 *
 * Then the slice (BENCH_SLICE=0 skips it): a create-shaped request (HTTP, Schema, an INSERT on PostgreSQL,
 * Schema again) served by each copy in its own process, with that copy's HTTP server and SQL client
 * (@effect/platform-node and @effect/sql-pg; for Effect 4 install them beside it:
 * `npm install --prefix <dir> effect@4 @effect/platform-node@4 @effect/sql-pg@4`), 32 waiting clients; the
 * server's CPU per request. PostgreSQL: TEST_DATABASE_URL, else the machine's.
 */
import * as Installed from "effect"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { runSlice } from "./support/effectSlice.js"

/** The functions used here exist with these shapes in Effect 3 and 4 (fork and the service tag are looked up). */
type EffectModule = typeof Installed
type Tag = Installed.Context.Tag<{ readonly base: number }, { readonly base: number }>

interface Runtime {
  readonly label: string
  readonly decodeRow: (row: unknown) => boolean
  readonly Effect: EffectModule["Effect"]
  readonly Fiber: EffectModule["Fiber"]
  readonly fork: EffectModule["Effect"]["fork"]
  readonly tag: Tag
}

const runtimeOf = (label: string, module: EffectModule): Runtime => {
  const effect = module.Effect as EffectModule["Effect"] & { readonly forkChild?: EffectModule["Effect"]["fork"] }
  const context = module.Context as EffectModule["Context"] & { readonly Service?: () => (key: string) => Tag }
  // Effect 4 renamed `fork` to `forkChild` and makes tags with `Context.Service`.
  const fork = effect.forkChild ?? effect.fork
  const tag = context.Service === undefined ? context.GenericTag<{ readonly base: number }>("bench/Base") : context.Service()("bench/Base")
  return { label, decodeRow: rowDecoder(module.Schema as unknown as NeutralSchema), Effect: effect, Fiber: module.Fiber, fork, tag }
}

/**
 * The parts of Schema a transactions row uses, as both versions spell them (Effect 4: `Literals`, `Record(key,
 * value)`, `Date`, `decodeUnknownResult`; Effect 3: `Literal(...)`, `Record({ key, value })`, `DateFromSelf`,
 * `decodeUnknownEither`). Typed loosely: the two versions' types differ, their values are used alike.
 */
interface NeutralSchema {
  readonly Struct: (fields: Record<string, unknown>) => unknown
  readonly String: unknown
  readonly Number: unknown
  readonly Boolean: unknown
  readonly Unknown: unknown
  readonly NullOr: (schema: unknown) => unknown
  readonly Array: (schema: unknown) => unknown
  readonly optional: (schema: unknown) => unknown
  readonly Record: (...args: ReadonlyArray<unknown>) => unknown
  readonly Literal: (...values: ReadonlyArray<string>) => unknown
  readonly Literals?: (values: ReadonlyArray<string>) => unknown
  readonly Date?: unknown
  readonly DateFromSelf?: unknown
  readonly decodeUnknownResult?: (schema: unknown) => (input: unknown) => { readonly _tag: string }
  readonly decodeUnknownEither?: (schema: unknown) => (input: unknown) => { readonly _tag: string }
}

/** A decoder of a row shaped like the transactions table's (src/pipeline/transactionRow.ts); true when it decodes. */
const rowDecoder = (S: NeutralSchema) => {
  const v4 = S.Literals !== undefined
  const literals = (values: ReadonlyArray<string>) => (v4 ? S.Literals!(values) : S.Literal(...values))
  const record = (key: unknown, value: unknown) => (v4 ? S.Record(key, value) : S.Record({ key, value }))
  const timestamp = v4 ? S.Date : S.DateFromSelf
  const json = record(S.String, S.Unknown)
  const stages = ["validation", "pre_balance", "build", "simulation", "policy", "approval", "sign", "send", "confirm", "post_checks", "completed"]
  const statuses = ["pending", "simulating", "policy_eval", "approval_gate", "signing", "submitting", "confirmed", "failed"]
  const history = S.Struct({ status: S.String, stage: S.String, at: S.String, message: S.optional(S.String) })
  const row = S.Struct({
    id: S.String, tenant_id: S.String, wallet_id: S.String, agent_id: S.NullOr(S.String), type: S.String, protocol: S.String,
    intent: json, request: json, request_hash: S.String, gasless: S.Boolean, require_approval: S.Boolean,
    idempotency_key: S.NullOr(S.String), status: literals(statuses), stage: literals(stages), failed_at: S.NullOr(literals(stages)),
    error_code: S.NullOr(S.String), error: S.NullOr(S.String), signature: S.NullOr(S.String), signed_transaction: S.NullOr(S.String),
    message_base64: S.NullOr(S.String), extra_signatures: S.NullOr(record(S.String, S.String)),
    build_facts: S.NullOr(S.Struct({ destination: S.NullOr(S.String), amountLamports: S.NullOr(S.String), programIds: S.Array(S.String), computeUnitLimit: S.Number, priorityFeeMicroLamports: S.String })),
    last_valid_block_height: S.NullOr(S.String), policy_decision: S.NullOr(json), simulation: S.NullOr(json), execution_proof: S.NullOr(json),
    delta_guard: S.NullOr(json), pre_balance_lamports: S.NullOr(S.String), post_balance_lamports: S.NullOr(S.String), result: S.NullOr(json),
    approval: S.NullOr(json), history: S.Array(history), attempts: S.Number, created_at: timestamp, updated_at: timestamp,
    confirmed_at: S.NullOr(timestamp), trace_id: S.optional(S.NullOr(S.String))
  })
  const decode = v4 ? S.decodeUnknownResult!(row) : S.decodeUnknownEither!(row)
  return (input: unknown) => { const tag = decode(input)._tag; return tag === "Success" || tag === "Right" }
}

/** A confirmed transfer's row as node-postgres hands it over (values of the sizes measured in docs/benchmarks.md). */
const confirmedRow = () => {
  const at = (i: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, i)).toISOString()
  const stages = ["validation", "build", "simulation", "policy", "sign", "send", "confirm", "completed"]
  return {
    id: "01a227ef-73e0-7d17-a7f8-3ef82c20b454", tenant_id: "default", wallet_id: "c12c3a7f-547c-4d4d-89e0-5309705ff878", agent_id: null,
    type: "transfer_sol", protocol: "system-program", intent: { destination: "25WVbPNdCk2N9aLu87kutvRnqMuHwG7hYMej2uFUYSyn", amountLamports: "1000" },
    request: { walletId: "c12c3a7f-547c-4d4d-89e0-5309705ff878", type: "transfer_sol", protocol: "system-program", intent: { destination: "25WVbPNdCk2N9aLu87kutvRnqMuHwG7hYMej2uFUYSyn", amountLamports: "1000" } },
    request_hash: "19b4bf699c4b13cd0476819f86f2ae5fc5f8401b4bd017690cd561fdb9dd1a2b", gasless: false, require_approval: false, idempotency_key: null,
    status: "confirmed", stage: "completed", failed_at: null, error_code: null, error: null, signature: "5".repeat(88), signed_transaction: "A".repeat(356),
    message_base64: "B".repeat(276), extra_signatures: null,
    build_facts: { destination: "25WVbPNdCk2N9aLu87kutvRnqMuHwG7hYMej2uFUYSyn", amountLamports: "1000", programIds: ["11111111111111111111111111111111"], computeUnitLimit: 600, priorityFeeMicroLamports: "0" },
    last_valid_block_height: "4821", policy_decision: { decision: "allow", reasons: [], policyVersions: { p1: 3 }, evaluatedAt: at(3) },
    simulation: { ok: true, unitsConsumed: 150, logs: ["Program 11111111111111111111111111111111 invoke [1]", "Program 11111111111111111111111111111111 success"], effect: { lamportsOut: "1005000" } },
    execution_proof: { version: 1, txId: "01a227ef-73e0-7d17-a7f8-3ef82c20b454", intentHash: "f".repeat(64), policyHash: "e".repeat(64), simulationHash: "d".repeat(64), signature: "5".repeat(88) },
    delta_guard: { expectedLamports: "-1005000", actualLamports: "-1005000" }, pre_balance_lamports: "1000000000", post_balance_lamports: "998995000",
    result: { slot: 4700 }, approval: null, history: stages.map((stage, i) => ({ status: i < 7 ? "submitting" : "confirmed", stage, at: at(i), message: `${stage} done` })),
    attempts: 1, created_at: new Date(), updated_at: new Date(), confirmed_at: new Date(), trace_id: "5aa1a4d1-bf42-4b57-86f9-a2c7b17822bf"
  }
}

const loadComparison = async (dir: string): Promise<Runtime> => {
  // `dir` is the package itself or a prefix holding it in node_modules
  const require = createRequire(path.join(path.resolve(dir), "noop.js"))
  const version = (require("effect/package.json") as { version: string }).version
  const entry = require.resolve("effect")
  return runtimeOf(`effect ${version} (${dir})`, (await import(pathToFileURL(entry).href)) as EffectModule)
}

const transferShaped = ({ Effect, Fiber, fork, tag }: Runtime) => {
  const pool = { open: 0, ensured: 0 }
  const acquire = Effect.sync(() => { pool.open++; return pool })
  const release = () => Effect.sync(() => { pool.open-- })
  const step = (x: number) => Effect.succeed(x + 1).pipe(Effect.map((y) => y * 2), Effect.flatMap((y) => Effect.sync(() => y - 1)))
  const statement = (x: number) => Effect.acquireUseRelease(acquire, () => Effect.promise(() => Promise.resolve(x)), release)
  const transfer = (i: number) =>
    Effect.gen(function* () {
      let x = (yield* tag).base + i
      for (let k = 0; k < 6; k++) x = yield* step(x)
      x = yield* statement(x)
      x = yield* statement(x)
      x = yield* Effect.ensuring(step(x), Effect.sync(() => { pool.ensured++ }))
      return yield* Fiber.join(yield* fork(step(x)))
    })
  return (n: number) =>
    Effect.forEach(Array.from({ length: n }, (_, i) => i), transfer, { concurrency: 32, discard: true }).pipe(Effect.provideService(tag, { base: 1 }))
}

const constructs = ({ Effect, Fiber, fork }: Runtime): ReadonlyArray<readonly [string, () => Installed.Effect.Effect<unknown>]> => [
  ["gen with 10 yields", () => Effect.gen(function* () { let x = 0; for (let k = 0; k < 10; k++) x += yield* Effect.succeed(k); return x })],
  ["10 map/flatMap steps", () => { let e: Installed.Effect.Effect<number> = Effect.succeed(0); for (let k = 0; k < 5; k++) e = e.pipe(Effect.map((y) => y + 1), Effect.flatMap((y) => Effect.sync(() => y))); return e }],
  ["acquireUseRelease", () => Effect.acquireUseRelease(Effect.sync(() => 1), (a) => Effect.succeed(a), () => Effect.void)],
  ["fork and join", () => Effect.flatMap(fork(Effect.succeed(1)), Fiber.join)],
  ["ensuring", () => Effect.ensuring(Effect.succeed(1), Effect.void)],
  ["promise", () => Effect.promise(() => Promise.resolve(1))]
]

const timeMs = async (run: () => Promise<unknown>) => {
  const started = process.hrtime.bigint()
  await run()
  return Number(process.hrtime.bigint() - started) / 1e6
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const ROUNDS = 5
const TRANSFERS = 50_000
const REPEATS = 200_000

const main = async () => {
  const installedVersion = (createRequire(import.meta.url)("effect/package.json") as { version: string }).version
  const runtimes = [runtimeOf(`effect ${installedVersion} (installed)`, Installed)]
  if (process.env.EFFECT_COMPARE_DIR !== undefined) runtimes.push(await loadComparison(process.env.EFFECT_COMPARE_DIR))
  const figures = new Map<string, Map<string, Array<number>>>(runtimes.map((r) => [r.label, new Map()]))
  const record = (runtime: Runtime, name: string, value: number) => {
    const byName = figures.get(runtime.label)!
    byName.set(name, [...(byName.get(name) ?? []), value])
  }
  for (const runtime of runtimes) {
    // warm-up: V8 optimises each runtime's hot functions before anything is timed
    const program = transferShaped(runtime)
    for (let w = 0; w < 3; w++) await runtime.Effect.runPromise(program(20_000))
    const row = confirmedRow()
    for (let w = 0; w < 20_000; w++) runtime.decodeRow(row)
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const runtime of round % 2 === 0 ? runtimes : [...runtimes].reverse()) {
      const program = transferShaped(runtime)
      record(runtime, "transfer-shaped program (µs)", (await timeMs(() => runtime.Effect.runPromise(program(TRANSFERS)))) * 1000 / TRANSFERS)
      const row = confirmedRow()
      const decodes = 20_000
      const decodeMs = await timeMs(async () => { for (let i = 0; i < decodes; i++) if (!runtime.decodeRow(row)) throw new Error(`${runtime.label}: the row does not decode`) })
      record(runtime, "decode a transactions row (µs)", decodeMs * 1000 / decodes)
      for (const [name, make] of constructs(runtime)) {
        const repeated = runtime.Effect.forEach(Array.from({ length: REPEATS }, (_, i) => i), make, { discard: true })
        if (round === 0) await runtime.Effect.runPromise(repeated)
        record(runtime, `${name} (ns)`, (await timeMs(() => runtime.Effect.runPromise(repeated))) * 1e6 / REPEATS)
      }
    }
  }
  const names = [...figures.get(runtimes[0].label)!.keys()]
  const dirs = [{ label: runtimes[0].label, dir: process.cwd() }, ...(process.env.EFFECT_COMPARE_DIR === undefined ? [] : [{ label: runtimes[1].label, dir: process.env.EFFECT_COMPARE_DIR }])]
  console.log(`Effect's runtime, median of ${ROUNDS} alternating rounds (a construct's time includes its share of the forEach that repeats it)`)
  console.log(["workload".padEnd(34), ...runtimes.map((r) => r.label.padStart(28))].join("  "))
  for (const name of names) {
    console.log([name.padEnd(34), ...runtimes.map((r) => median(figures.get(r.label)!.get(name)!).toFixed(name.endsWith("(µs)") ? 2 : 0).padStart(28))].join("  "))
  }
  if (process.env.BENCH_SLICE === "0") return
  const slice = await runSlice(dirs, { rounds: 3, warmup: 5_000, requests: 20_000 }).catch((error: unknown) => {
    console.log(`\nThe slice did not run: ${error instanceof Error ? error.message : String(error)}`)
    return []
  })
  if (slice.length === 0) return
  console.log("\nThe slice: a create-shaped request (HTTP, Schema, INSERT ... RETURNING, Schema), 32 waiting clients; each round 20,000 requests")
  for (const figures of slice) {
    console.log(`${figures.label.padEnd(40)}  server CPU per request ${figures.microsPerRequest.map((us) => us.toFixed(0)).join(", ")} us; ${figures.perSecond.map((n) => n.toFixed(0)).join(", ")} requests/s`)
  }
}

await main()
