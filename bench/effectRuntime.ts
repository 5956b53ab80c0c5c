/**
 * `npm run bench:runtime`: what Effect's own runtime costs per operation, on the version the service runs and,
 * beside it, on another copy of `effect` (EFFECT_COMPARE_DIR: a package directory, e.g. after
 * `npm install --prefix /tmp/effect4 effect@4`). No database, no ledger: the pipeline spends about a quarter of
 * its main thread in Effect's fiber runtime (docs/benchmarks.md), and this measures that part alone.
 *
 * Workloads: a transfer-shaped program (a service lookup, six map/flatMap steps, two acquire/use/release
 * "statements" around an async boundary, an ensuring, a fork and join; 32 at a time), then each construct
 * alone. The runtimes run in alternating rounds in this one process; the median of the rounds is printed.
 */
import * as Installed from "effect"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

/** The functions used here exist with these shapes in Effect 3 and 4 (fork and the service tag are looked up). */
type EffectModule = typeof Installed
type Tag = Installed.Context.Tag<{ readonly base: number }, { readonly base: number }>

interface Runtime {
  readonly label: string
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
  return { label, Effect: effect, Fiber: module.Fiber, fork, tag }
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
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const runtime of round % 2 === 0 ? runtimes : [...runtimes].reverse()) {
      const program = transferShaped(runtime)
      record(runtime, "transfer-shaped program (µs)", (await timeMs(() => runtime.Effect.runPromise(program(TRANSFERS)))) * 1000 / TRANSFERS)
      for (const [name, make] of constructs(runtime)) {
        const repeated = runtime.Effect.forEach(Array.from({ length: REPEATS }, (_, i) => i), make, { discard: true })
        if (round === 0) await runtime.Effect.runPromise(repeated)
        record(runtime, `${name} (ns)`, (await timeMs(() => runtime.Effect.runPromise(repeated))) * 1e6 / REPEATS)
      }
    }
  }
  const names = [...figures.get(runtimes[0].label)!.keys()]
  console.log(`Effect's runtime, median of ${ROUNDS} alternating rounds (a construct's time includes its share of the forEach that repeats it)`)
  console.log(["workload".padEnd(34), ...runtimes.map((r) => r.label.padStart(28))].join("  "))
  for (const name of names) {
    console.log([name.padEnd(34), ...runtimes.map((r) => median(figures.get(r.label)!.get(name)!).toFixed(name.endsWith("(µs)") ? 2 : 0).padStart(28))].join("  "))
  }
}

await main()
