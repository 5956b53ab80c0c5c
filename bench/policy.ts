/**
 * `npm run bench:policy`. Each section measures one path and prints its figures; sections run in order.
 * Section 1 (here): the in-process evaluator for a wallet with 3 active policies of 10 rules each.
 * Target: >= 50,000 evaluations/s and p99 < 1 ms. Further sections (the HTTP path, once per database,
 * bench/policyHttp.ts) append to `sections`. BENCH_SKIP_IN_PROCESS=1 runs only the HTTP sections.
 */
import type { EvaluateRequest } from "../schemas/policy.js"
import { CompiledRulesCache, type StoredPolicy } from "../src/policy/compileRules.js"
import { evaluatePolicies } from "../src/policy/evaluate.js"
import type { EvaluationState } from "../src/policy/evaluationState.js"
import { httpEvaluateSections } from "./policyHttp.js"
import { DEST, SYSTEM_PROGRAM, tenRules } from "./support/policyFixture.js"

export interface BenchFigures {
  readonly name: string
  readonly operations: number
  readonly perSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly target?: { readonly minPerSecond: number; readonly maxP99Ms: number }
  /** A line printed under the figures (e.g. CPU per operation by process). */
  readonly note?: string
}

export interface BenchSection {
  readonly name: string
  readonly run: () => Promise<BenchFigures>
}

const WALLET = "8f1d8b2e-1c2a-4c3b-9d4e-5f6a7b8c9d0e"
const AGENT = "5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716"

const storedPolicies: ReadonlyArray<StoredPolicy> = [0, 1, 2].map((variant) => ({
  id: `policy-${variant}`,
  walletId: WALLET,
  name: `bench ${variant}`,
  version: 1,
  active: true,
  rules: tenRules(variant)
}))

const request: EvaluateRequest = {
  walletId: WALLET,
  agentId: AGENT,
  type: "transfer_sol",
  protocol: "system-program",
  destination: DEST,
  amountLamports: 1_000_000_000n,
  programIds: [SYSTEM_PROGRAM],
  timestamp: new Date("2025-03-10T12:00:00Z")
}

const state: EvaluationState = {
  now: new Date("2025-03-10T12:00:00Z"),
  dailySpentLamports: 3_000_000_000n,
  rateCounts: new Map([[60, 10], [120, 10], [180, 10]]),
  portfolio: { drawdownLamports: 0n, dailyLossLamports: 0n, tokenExposureBps: { SOL: 1_000 }, protocolExposureBps: {} }
}

const percentile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

const inProcessEvaluator: BenchSection = {
  name: "policy evaluation, in process (3 active policies x 10 rules)",
  run: async () => {
    // The store's path per evaluation: read rows, compile through the per-version cache, evaluate.
    const cache = new CompiledRulesCache()
    const evaluateOnce = () => evaluatePolicies(storedPolicies.map((p) => cache.compile(p)), request, state)

    const first = evaluateOnce()
    if (first.decision !== "allow") throw new Error(`bench fixture should allow, got ${first.decision}: ${first.reasons.join("; ")}`)
    for (let i = 0; i < 20_000; i++) evaluateOnce() // warm-up: let the JIT settle

    const operations = 200_000
    const latencies = new Float64Array(operations)
    const started = process.hrtime.bigint()
    for (let i = 0; i < operations; i++) {
      const t0 = process.hrtime.bigint()
      evaluateOnce()
      latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6
    }
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6
    latencies.sort()
    return {
      name: inProcessEvaluator.name,
      operations,
      perSecond: Math.round(operations / (elapsedMs / 1000)),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      target: { minPerSecond: 50_000, maxP99Ms: 1 }
    }
  }
}

/** Append further sections here. */
export const sections: Array<BenchSection> = [inProcessEvaluator, ...httpEvaluateSections]

const report = (f: BenchFigures): boolean => {
  const meets = f.target === undefined || (f.perSecond >= f.target.minPerSecond && f.p99Ms < f.target.maxP99Ms)
  const target = f.target === undefined ? "" : ` (target >= ${f.target.minPerSecond}/s, p99 < ${f.target.maxP99Ms} ms: ${meets ? "met" : "MISSED"})`
  console.log(`${f.name}\n  ${f.operations} ops, ${f.perSecond.toLocaleString("en-US")}/s, p50 ${f.p50Ms.toFixed(4)} ms, p99 ${f.p99Ms.toFixed(4)} ms${target}`)
  if (f.note !== undefined) console.log(`  ${f.note}`)
  return meets
}

const main = async () => {
  let allMet = true
  for (const section of sections) {
    if (section === inProcessEvaluator && process.env.BENCH_SKIP_IN_PROCESS === "1") continue
    allMet = report(await section.run()) && allMet
  }
  if (!allMet) process.exitCode = 1
}

await main()
