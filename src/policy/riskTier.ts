/**
 * Risk tier deduction, in the spec's order: an explicit hint wins; bundle-like types are critical;
 * more than 2 SOL is high; swap / lend / stake types are medium; everything else is low.
 */
import type { RiskTier } from "../../schemas/policy.js"

export const HIGH_RISK_AMOUNT_LAMPORTS = 2_000_000_000n

const CRITICAL_TYPES: ReadonlySet<string> = new Set(["flash_loan_bundle", "cpi_call", "custom_instruction_bundle"])

export interface RiskTierInput {
  readonly type: string
  readonly amountLamports?: bigint | undefined
  readonly riskTierHint?: RiskTier | undefined
}

export const deriveRiskTier = (input: RiskTierInput): RiskTier => {
  if (input.riskTierHint !== undefined) return input.riskTierHint
  if (CRITICAL_TYPES.has(input.type)) return "critical"
  if (input.amountLamports !== undefined && input.amountLamports > HIGH_RISK_AMOUNT_LAMPORTS) return "high"
  if (input.type.includes("swap") || input.type.includes("lend") || input.type.includes("stake")) return "medium"
  return "low"
}

/** The critical tier requires approval by default (spec), on top of whatever the rules decided. */
export const tierRequiresApproval = (tier: RiskTier): boolean => tier === "critical"
