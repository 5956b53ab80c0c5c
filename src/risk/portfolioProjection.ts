/**
 * Projected portfolio metrics for the policy engine (docs/decisions/portfolio.md): the wallet's value now
 * (PortfolioValuation), judged against its value history (PortfolioValueRepo).
 * - A decision values the portfolio fresh, records the value and is judged on the history before it (it runs in
 *   the decision's SQL transaction, under the wallet's lock).
 * - A what-if (POST /evaluate) records nothing and shares one valuation per wallet and UTC day for at most
 *   WHAT_IF_TTL within this process: a burst of what-ifs costs one set of chain reads, not one each.
 * A value that cannot be computed leaves the metrics out, with why (the portfolio limits then deny).
 */
import { Cache, Duration, Effect } from "effect"
import type { PortfolioMetrics } from "./projectedMetrics.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { projectPortfolioMetrics, type PortfolioFacts } from "./portfolioMetrics.js"
import type { PortfolioValue } from "./portfolioValue.js"
import { PortfolioValuation } from "./portfolioValuation.js"
import { type PortfolioBaseline, PortfolioValueRepo } from "./portfolioValueRepo.js"

export const WHAT_IF_TTL = Duration.seconds(1)

export interface PortfolioProjection {
  readonly metrics?: PortfolioMetrics | undefined
  readonly unavailable?: string | undefined
}

export interface ProjectionRequest extends PortfolioFacts {
  readonly tenantId: string
  readonly walletId: string
  readonly utcDay: string
  /** the SOL balance the pipeline read before the build (a decision) */
  readonly solLamports?: bigint | undefined
}

type Valued = { readonly ok: true; readonly value: PortfolioValue; readonly baseline: PortfolioBaseline } | { readonly ok: false; readonly reason: string }

const project = (valued: Valued, request: ProjectionRequest): PortfolioProjection =>
  valued.ok ? { metrics: projectPortfolioMetrics(valued.baseline, valued.value, request) } : { unavailable: valued.reason }

export class PortfolioProjector extends Effect.Service<PortfolioProjector>()("PortfolioProjector", {
  dependencies: [PortfolioValuation.Default, PortfolioValueRepo.Default, WalletRepo.Default],
  effect: Effect.gen(function* () {
    const valuation = yield* PortfolioValuation
    const values = yield* PortfolioValueRepo
    const wallets = yield* WalletRepo

    const valueNow = (tenantId: string, walletId: string, solLamports: bigint | undefined) =>
      Effect.gen(function* () {
        const stored = yield* wallets.find(walletId, tenantId)
        if (stored === undefined) return { ok: false as const, reason: `wallet ${walletId} not found` }
        return yield* valuation.valueOf({ tenantId, walletId, publicKey: stored.wallet.publicKey, solLamports })
      })

    /** A decision: the value now, recorded; judged against the history before it. */
    const forDecision = (request: ProjectionRequest) =>
      Effect.gen(function* () {
        const valued = yield* valueNow(request.tenantId, request.walletId, request.solLamports)
        if (!valued.ok) return project(valued, request)
        const baseline = yield* values.observe(request.tenantId, request.walletId, request.utcDay, valued.value.totalLamports)
        return project({ ok: true, value: valued.value, baseline }, request)
      })

    const whatIfValues = yield* Cache.make({
      capacity: 10_000,
      timeToLive: WHAT_IF_TTL,
      lookup: (key: string) =>
        Effect.gen(function* () {
          const [tenantId, walletId, utcDay] = JSON.parse(key) as [string, string, string]
          const valued = yield* valueNow(tenantId, walletId, undefined)
          if (!valued.ok) return valued satisfies Valued
          const baseline = yield* values.baseline(tenantId, walletId, utcDay)
          return { ok: true, value: valued.value, baseline } satisfies Valued
        })
    })

    /** A what-if: nothing recorded; the valuation shared for WHAT_IF_TTL. */
    const forWhatIf = (request: ProjectionRequest) =>
      whatIfValues.get(JSON.stringify([request.tenantId, request.walletId, request.utcDay])).pipe(Effect.map((valued) => project(valued, request)))

    return { forDecision, forWhatIf }
  })
}) {}
