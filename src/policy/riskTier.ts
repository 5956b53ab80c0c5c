/**
 * Risk tier deduction, in the spec's order: an explicit hint wins; bundle-like types are critical;
 * more than 2 SOL is high; swap / lend / stake types are medium; everything else is low. A type's
 * tier before amounts is its facts' (src/protocols/typeFacts.ts); what is no type (a sign request) is low.
 */
import type { RiskTier } from "../../schemas/policy.js"
import { typeFactsOf } from "../protocols/registry.js"

export const HIGH_RISK_AMOUNT_LAMPORTS = 2_000_000_000n

export interface RiskTierInput {
  readonly type: string
  readonly amountLamports?: bigint | undefined
  readonly riskTierHint?: RiskTier | undefined
}

export const deriveRiskTier = (input: RiskTierInput): RiskTier => {
  if (input.riskTierHint !== undefined) return input.riskTierHint
  const typeTier = typeFactsOf(input.type)?.riskTier ?? "low"
  if (typeTier === "critical") return "critical"
  if (input.amountLamports !== undefined && input.amountLamports > HIGH_RISK_AMOUNT_LAMPORTS) return "high"
  return typeTier
}

/** The critical tier requires approval by default (spec), on top of whatever the rules decided. */
export const tierRequiresApproval = (tier: RiskTier): boolean => tier === "critical"
