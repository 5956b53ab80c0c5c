/**
 * Deployment-wide protocol risk config (issue 34 item 4, docs/decisions/risk-layers.md): what an operator of
 * the whole deployment (tenant `*`) sets is the default every tenant inherits, and a tenant's own config may
 * tighten it but never loosen it. Pure: the effective config of a tenant from its two layers, which layer each
 * value comes from, and the first field of a tenant's write that would be looser than the deployment's.
 *
 * Per field the tighter value wins: the lower of two bounds; `requireOracleForSwap` if either asks for it;
 * `gaslessEligible` is the tenant's own choice when it made one (never true against the deployment's false), else the
 * deployment's (so a deployment-wide `true` enables it for every tenant that did not turn it off); when both layers have an
 * allowlist, the tenant's is shown and both are checked (`inherited`), so a pool must be in both, even when the
 * deployment narrowed its list after the tenant's was written.
 */
import type { ProtocolRiskConfig, ProtocolRiskConfigUpdate } from "../../schemas/policy.js"

/** The deployment's allowlists, checked beside the tenant's (a pool or program must be in both). */
export interface InheritedLists {
  readonly allowedPools: ReadonlyArray<string>
  readonly allowedPrograms: ReadonlyArray<string>
}

/** The tenant's config with the deployment's layer applied; `inherited`: the deployment's bounds, checked too. */
export type EffectiveProtocolConfig = ProtocolRiskConfig & { readonly inherited?: InheritedLists }

/** The deployment's layer as stored: only the fields its operator set. */
export type DeploymentLayer = ProtocolRiskConfigUpdate

export type ConfigLayer = "default" | "deployment" | "tenant"

const BOUNDS = ["maxSlippageBps", "maxPoolConcentrationBps", "oracleDeviationBps", "maxQuoteAgeSeconds", "deltaVarianceBpsThreshold"] as const
const LISTS = ["allowedPools", "allowedPrograms"] as const

const defined = <A>(value: A | null | undefined): value is A => value !== undefined && value !== null

/** The config as answered: without the deployment's lists kept for the checks. */
export const shownConfig = ({ inherited: _inherited, ...config }: EffectiveProtocolConfig): ProtocolRiskConfig => config

/**
 * The effective config of a tenant for a protocol, and the layer of each field. `tenant` is the tenant's own
 * config (or the defaults, `updatedAt` the epoch, when it has none); `tenantSetsGasless`: whether the tenant
 * wrote `gaslessEligible` itself (its stored config has the field).
 */
export const layeredConfig = (tenant: ProtocolRiskConfig, tenantHasOwn: boolean, deployment: DeploymentLayer | undefined, tenantSetsGasless: boolean) => {
  const layers: Record<string, ConfigLayer> = {}
  const own: ConfigLayer = tenantHasOwn ? "tenant" : "default"
  const result: Record<string, unknown> = { ...tenant }
  for (const field of BOUNDS) {
    const mine = tenant[field]
    const theirs = deployment?.[field]
    if (defined(theirs) && (!defined(mine) || theirs < mine)) {
      result[field] = theirs
      layers[field] = "deployment"
    } else {
      layers[field] = defined(mine) ? own : "default"
    }
  }
  for (const field of LISTS) {
    const mine = tenant[field]
    const theirs = deployment?.[field] ?? []
    if (theirs.length > 0 && mine.length === 0) {
      result[field] = theirs
      layers[field] = "deployment"
    } else {
      layers[field] = mine.length > 0 ? own : "default"
    }
  }
  if (deployment?.requireOracleForSwap === true && !tenant.requireOracleForSwap) {
    result.requireOracleForSwap = true
    layers.requireOracleForSwap = "deployment"
  } else {
    layers.requireOracleForSwap = tenantHasOwn ? "tenant" : "default"
  }
  if (tenantSetsGasless) {
    const forbidden = deployment?.gaslessEligible === false && tenant.gaslessEligible
    result.gaslessEligible = tenant.gaslessEligible && !forbidden
    layers.gaslessEligible = forbidden ? "deployment" : "tenant"
  } else {
    result.gaslessEligible = deployment?.gaslessEligible ?? false
    layers.gaslessEligible = defined(deployment?.gaslessEligible) ? "deployment" : "default"
  }
  layers.version = tenantHasOwn ? "tenant" : "default"
  const inherited: InheritedLists | undefined =
    deployment === undefined ? undefined : { allowedPools: deployment.allowedPools ?? [], allowedPrograms: deployment.allowedPrograms ?? [] }
  const config = { ...(result as ProtocolRiskConfig), layers, ...(inherited === undefined ? {} : { inherited }) }
  return config as EffectiveProtocolConfig
}

/** The deployment's own layer as a config (what a deployment-wide GET answers): its fields over the defaults. */
export const deploymentConfig = (defaults: ProtocolRiskConfig, deployment: DeploymentLayer, updatedAt: string): ProtocolRiskConfig => {
  const layers: Record<string, ConfigLayer> = {}
  const result: Record<string, unknown> = { ...defaults, updatedAt }
  for (const [field, value] of Object.entries(deployment)) {
    if (!defined(value)) continue
    result[field] = value
  }
  for (const field of Object.keys(defaults)) {
    if (field === "protocol" || field === "updatedAt") continue
    layers[field] = defined((deployment as Record<string, unknown>)[field]) ? "deployment" : "default"
  }
  for (const field of BOUNDS) layers[field] = defined(deployment[field]) ? "deployment" : "default"
  return { ...(result as ProtocolRiskConfig), layers }
}

/**
 * The first field of a tenant's write that would be looser than the deployment's layer, with the message
 * naming it (the write is refused, nothing changes); undefined when the write only tightens or leaves alone.
 * Clearing a bound (null) is no loosening: the deployment's bound still applies.
 */
export const looserThanDeployment = (update: ProtocolRiskConfigUpdate, deployment: DeploymentLayer | undefined) => {
  if (deployment === undefined) return undefined
  for (const field of BOUNDS) {
    const mine = update[field]
    const theirs = deployment[field]
    if (defined(mine) && defined(theirs) && mine > theirs) {
      return { field, message: `${field}: ${mine} is looser than the deployment-wide ${theirs} (a tenant may only tighten it)` }
    }
  }
  for (const field of LISTS) {
    const mine = update[field]
    const theirs = deployment[field] ?? []
    // An empty list is the tenant's "no list of its own": the deployment's still applies.
    const outside = theirs.length === 0 || mine === undefined ? [] : mine.filter((entry) => !theirs.includes(entry))
    if (outside.length > 0) {
      return { field, message: `${field}: ${outside.join(", ")} is not in the deployment-wide list (a tenant may only narrow it)` }
    }
  }
  if (update.requireOracleForSwap === false && deployment.requireOracleForSwap === true) {
    return { field: "requireOracleForSwap", message: "requireOracleForSwap: false is looser than the deployment-wide true (a tenant may only tighten it)" }
  }
  if (update.gaslessEligible === true && deployment.gaslessEligible === false) {
    return { field: "gaslessEligible", message: "gaslessEligible: true is looser than the deployment-wide false (a tenant may only tighten it)" }
  }
  return undefined
}
