import { ADAPTER_VERSION_HISTORY, legacyFieldsAt } from "./intentMigration.js"
import { kindProblem } from "./intentRequirements.js"
import { RAW_INSTRUCTION_TYPES } from "./rawInstructions.js"
import { type ProtocolAdapterInfo, TYPE_FACTS } from "./registry.js"
import type { AdapterOperation } from "./transactionTypes.js"

/** Response of POST /protocols/<protocol>/compatibility-check (shape in docs/decisions/pipeline.md). */
export interface CompatibilityResult {
  readonly compatible: boolean
  readonly protocol: string
  readonly version: string
  readonly type: string
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

/**
 * Whether `{ type, intent }` can run on `adapter` at its current version: errors make it
 * incompatible (type not a capability, field missing, unknown or of the wrong kind); warnings do not
 * (legacy field name, adapter without a builder yet).
 */
export const checkCompatibility = (
  adapter: ProtocolAdapterInfo,
  request: { readonly type: string; readonly intent: Readonly<Record<string, unknown>> }
): CompatibilityResult => {
  const { type, intent } = request
  const errors: string[] = []
  const warnings: string[] = []
  const result = () => ({ compatible: errors.length === 0, protocol: adapter.protocol, version: adapter.version, type, errors, warnings })

  // cpi_call / custom_instruction_bundle name their own programs and build under any protocol
  const capability = adapter.capabilities.find((c) => c === type) ?? (RAW_INSTRUCTION_TYPES.has(type) ? (type as AdapterOperation) : undefined)
  if (capability === undefined) {
    errors.push(`type ${type} is not a capability of ${adapter.protocol} ${adapter.version} (capabilities: ${adapter.capabilities.join(", ")})`)
    return result()
  }
  if (!adapter.implemented && !RAW_INSTRUCTION_TYPES.has(type)) {
    warnings.push(`${adapter.protocol} ${adapter.version} has no transaction builder yet: a transaction would fail at build`)
  }

  const fields = TYPE_FACTS[capability].intentFields ?? {}
  const legacy = ADAPTER_VERSION_HISTORY[adapter.protocol].versions.includes(adapter.version)
    ? legacyFieldsAt(adapter.protocol, adapter.version)
    : new Map<string, string>()

  for (const [name, requirement] of Object.entries(fields)) {
    const value = intent[name]
    if (value === undefined || value === null) {
      const legacyName = [...legacy].find(([, current]) => current === name)?.[0]
      if (legacyName !== undefined && intent[legacyName] !== undefined) continue // reported below as a warning
      if (!requirement.optional) errors.push(`intent.${name} is required`)
      continue
    }
    const problem = kindProblem(requirement.kind, value)
    if (problem !== null) errors.push(`intent.${name} ${problem}`)
  }
  for (const name of Object.keys(intent)) {
    if (name in fields) continue
    const current = legacy.get(name)
    if (current !== undefined) {
      warnings.push(
        `intent.${name} is the pre-${adapter.version} name of ${current}; migrate with POST /api/v1/protocols/${adapter.protocol}/migrate-intent`
      )
      const problem = intent[current] === undefined ? kindProblem(fields[current]?.kind ?? "string", intent[name]) : null
      if (problem !== null) errors.push(`intent.${name} ${problem}`)
    } else {
      // Strict input: the service refuses a field it does not know (docs/decisions/input-hardening.md).
      errors.push(`intent.${name} is not a field of ${type} on ${adapter.protocol} ${adapter.version}: unknown fields are refused`)
    }
  }
  return result()
}
