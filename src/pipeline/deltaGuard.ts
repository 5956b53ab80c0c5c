/**
 * Post-confirmation balance delta guard, exactly the spec's rule.
 *
 * What it compares: the wallet's raw lamport balance after confirmation minus before
 * submission (observed) against the intent amount signed by direction (expected). The
 * observed delta of an outflow therefore also contains the network fee (5,000 lamports
 * per signature), the priority fee (limit × price / 1e6) and any rent the transaction
 * deposits; the absolute tolerance and the variance threshold are what absorb them.
 * The guard does not try to subtract fees: it reports what the wallet really lost.
 * Which types it checks, and in which direction, are their facts (src/protocols/typeFacts.ts).
 */
import { typeFactsOf } from "../protocols/registry.js"
import { type DeltaDirection, expectedAmountLamports } from "../protocols/typeFacts.js"


export interface DeltaGuardInput {
  readonly type: string
  readonly intent: Readonly<Record<string, unknown>>
  /** instead of the type's own direction: a reading that checks it as another flow (a swap that sold SOL) */
  readonly direction?: DeltaDirection | undefined
  readonly preBalanceLamports: bigint
  readonly postBalanceLamports: bigint
  /** DELTA_GUARD_ABSOLUTE_TOLERANCE_LAMPORTS */
  readonly absoluteToleranceLamports: bigint
  /** the protocol risk config's deltaVarianceBpsThreshold (0-10000) */
  readonly varianceBpsThreshold: number
}

/** The spec's `deltaGuard` object, with lamports as bigint (see deltaGuardToWire). */
export interface DeltaGuardResult {
  readonly ok: boolean
  readonly expectedLamportsDelta: bigint | null
  readonly observedLamportsDelta: bigint | null
  readonly varianceBps: number | null
  readonly reason?: string
}

export interface DeltaGuardWire {
  readonly ok: boolean
  readonly expectedLamportsDelta: number | null
  readonly observedLamportsDelta: number | null
  readonly varianceBps: number | null
  readonly reason?: string
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v)

/** round(numerator / denominator × 10000), half up, for non-negative numerator and positive denominator. */
const roundedBps = (numerator: bigint, denominator: bigint): number => {
  const scaled = numerator * 10_000n
  return Number((scaled * 2n + denominator) / (2n * denominator))
}

export const evaluateDeltaGuard = (input: DeltaGuardInput): DeltaGuardResult => {
  const observed = input.postBalanceLamports - input.preBalanceLamports
  const direction = input.direction ?? typeFactsOf(input.type)?.deltaGuard?.direction
  if (direction === undefined) {
    return { ok: true, expectedLamportsDelta: null, observedLamportsDelta: observed, varianceBps: null, reason: `no delta check for type ${input.type}` }
  }
  const amount = expectedAmountLamports(input.intent)
  if (amount === null) {
    return {
      ok: true,
      expectedLamportsDelta: null,
      observedLamportsDelta: observed,
      varianceBps: null,
      reason: "no delta check: intent has no positive integer lamports, amountLamports or amount"
    }
  }
  const expected = direction === "outflow" ? -amount : amount
  const difference = abs(observed - expected)
  const denominator = abs(expected) > 1n ? abs(expected) : 1n
  const varianceBps = roundedBps(difference, denominator)
  if (difference <= input.absoluteToleranceLamports) {
    return { ok: true, expectedLamportsDelta: expected, observedLamportsDelta: observed, varianceBps }
  }
  if (varianceBps <= input.varianceBpsThreshold) {
    return { ok: true, expectedLamportsDelta: expected, observedLamportsDelta: observed, varianceBps }
  }
  return {
    ok: false,
    expectedLamportsDelta: expected,
    observedLamportsDelta: observed,
    varianceBps,
    reason:
      `observed delta ${observed} lamports differs from expected ${expected} by ${difference} lamports ` +
      `(beyond tolerance ${input.absoluteToleranceLamports}); variance ${varianceBps} bps exceeds threshold ${input.varianceBpsThreshold} bps`
  }
}

/** The spec's wire shape (numbers). Exact while |delta| < 2^53 lamports (about 9 million SOL). */
export const deltaGuardToWire = (result: DeltaGuardResult): DeltaGuardWire => ({
  ok: result.ok,
  expectedLamportsDelta: result.expectedLamportsDelta === null ? null : Number(result.expectedLamportsDelta),
  observedLamportsDelta: result.observedLamportsDelta === null ? null : Number(result.observedLamportsDelta),
  varianceBps: result.varianceBps,
  ...(result.reason === undefined ? {} : { reason: result.reason })
})
