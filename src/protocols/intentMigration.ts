import { Data, Either } from "effect"
import { CURRENT_ADAPTER_VERSION, type ProtocolId } from "./registry.js"

/**
 * Adapter version history and intent migration (spec Versioning 3). A step renames intent
 * fields between two consecutive versions. The spec's example is the only rename so far:
 * the swap adapters' 0.9.0 read `slippageBps`, 1.0.0 reads `maxSlippageBps`.
 */

export interface FieldRename {
  readonly from: string
  readonly to: string
}

export interface AdapterVersionStep {
  readonly from: string
  readonly to: string
  readonly renames: ReadonlyArray<FieldRename>
}

export interface AdapterVersionHistory {
  /** oldest first; the last is the current version */
  readonly versions: ReadonlyArray<string>
  readonly steps: ReadonlyArray<AdapterVersionStep>
}

const SLIPPAGE_RENAME: AdapterVersionStep = {
  from: "0.9.0",
  to: "1.0.0",
  renames: [{ from: "slippageBps", to: "maxSlippageBps" }]
}
const swapHistory: AdapterVersionHistory = { versions: ["0.9.0", "1.0.0"], steps: [SLIPPAGE_RENAME] }
const singleVersion: AdapterVersionHistory = { versions: [CURRENT_ADAPTER_VERSION], steps: [] }

export const ADAPTER_VERSION_HISTORY: Readonly<Record<ProtocolId, AdapterVersionHistory>> = {
  "system-program": singleVersion,
  "spl-token": singleVersion,
  escrow: singleVersion,
  "dex-aggregator": swapHistory,
  "amm-one": swapHistory,
  "amm-two": swapHistory,
  "liquid-staking": singleVersion,
  "lending-market": singleVersion,
  "nft-program": singleVersion
}

/** Field names a version no longer reads, mapped to the name it reads instead. */
export const legacyFieldsAt = (protocol: ProtocolId, version: string): ReadonlyMap<string, string> => {
  const history = ADAPTER_VERSION_HISTORY[protocol]
  const upTo = history.versions.indexOf(version)
  const legacy = new Map<string, string>()
  for (const step of history.steps) {
    if (history.versions.indexOf(step.to) <= upTo) for (const r of step.renames) legacy.set(r.from, r.to)
  }
  return legacy
}

export class IntentMigrationError extends Data.TaggedError("IntentMigrationError")<{
  readonly protocol: string
  readonly message: string
}> {}

/** Response of POST /protocols/<protocol>/migrate-intent (shape decided in docs/decisions/pipeline.md). */
export interface MigratedIntent {
  readonly protocol: ProtocolId
  readonly fromVersion: string
  readonly targetVersion: string
  readonly intent: Record<string, unknown>
  /** one readable line per change, in the order applied */
  readonly changes: ReadonlyArray<string>
}

export interface MigrateIntentRequest {
  readonly protocol: ProtocolId
  readonly intent: Readonly<Record<string, unknown>>
  readonly targetVersion: string
  /** when absent, inferred: the version before the first step that changes this intent */
  readonly fromVersion?: string
}

const stepApplies = (step: AdapterVersionStep, intent: Readonly<Record<string, unknown>>): boolean =>
  step.renames.some((r) => intent[r.from] !== undefined)

export const migrateIntent = (request: MigrateIntentRequest): Either.Either<MigratedIntent, IntentMigrationError> => {
  const { protocol, targetVersion } = request
  const history = ADAPTER_VERSION_HISTORY[protocol]
  const fail = (message: string) => Either.left(new IntentMigrationError({ protocol, message }))
  const known = history.versions.join(", ")
  const targetIndex = history.versions.indexOf(targetVersion)
  if (targetIndex < 0) return fail(`unknown targetVersion ${targetVersion} of ${protocol} (known: ${known})`)

  const pending = history.steps.filter((s) => history.versions.indexOf(s.to) <= targetIndex)
  let fromVersion: string
  if (request.fromVersion !== undefined) {
    if (!history.versions.includes(request.fromVersion)) {
      return fail(`unknown fromVersion ${request.fromVersion} of ${protocol} (known: ${known})`)
    }
    fromVersion = request.fromVersion
  } else {
    fromVersion = pending.find((s) => stepApplies(s, request.intent))?.from ?? targetVersion
  }
  const fromIndex = history.versions.indexOf(fromVersion)
  if (fromIndex > targetIndex) return fail(`cannot migrate ${protocol} intent down from ${fromVersion} to ${targetVersion}`)

  const intent: Record<string, unknown> = { ...request.intent }
  const changes: string[] = []
  for (const step of pending.filter((s) => history.versions.indexOf(s.from) >= fromIndex)) {
    for (const { from, to } of step.renames) {
      if (intent[from] === undefined) continue
      if (intent[to] !== undefined && JSON.stringify(intent[to]) !== JSON.stringify(intent[from])) {
        return fail(`intent has both ${from} and ${to} with different values; keep one`)
      }
      changes.push(
        intent[to] === undefined
          ? `${step.to}: renamed ${from} to ${to}`
          : `${step.to}: removed ${from} (same value as ${to})`
      )
      intent[to] = intent[from]
      delete intent[from]
    }
  }
  return Either.right({ protocol, fromVersion, targetVersion, intent, changes })
}
