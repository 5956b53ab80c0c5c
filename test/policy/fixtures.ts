/** Builders shared by the policy tests: stored policies as JSON, requests, and state snapshots. */
import type { EvaluateRequest } from "../../schemas/policy.js"
import { compilePolicy, type CompiledPolicy } from "../../src/policy/compileRules.js"
import { evaluatePolicies, type PolicyEvaluation } from "../../src/policy/evaluate.js"
import type { EvaluationState } from "../../src/policy/evaluationState.js"

export const WALLET = "8f1d8b2e-1c2a-4c3b-9d4e-5f6a7b8c9d0e"
export const OTHER_WALLET = "1b9f6d4e-2a3c-4d5e-8f7a-9b0c1d2e3f4a"
export const AGENT = "5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716"

export const ADDR_A = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
export const ADDR_B = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
export const ADDR_C = "HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH"
export const SYSTEM_PROGRAM = "11111111111111111111111111111111"
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

export const AT_NOON = new Date("2025-03-10T12:00:00.000Z")

let counter = 0
export const storedPolicy = (
  rules: unknown,
  overrides: Partial<{ walletId: string; active: boolean; name: string; version: number }> = {}
): CompiledPolicy =>
  compilePolicy({
    id: `policy-${++counter}`,
    walletId: overrides.walletId ?? WALLET,
    name: overrides.name ?? `p${counter}`,
    version: overrides.version ?? 1,
    active: overrides.active ?? true,
    rules
  })

export const request = (overrides: Partial<EvaluateRequest> = {}): EvaluateRequest => ({
  walletId: WALLET,
  type: "transfer_sol",
  protocol: "system-program",
  timestamp: AT_NOON,
  ...overrides
})

export const snapshot = (overrides: Partial<EvaluationState> = {}): EvaluationState => ({
  now: AT_NOON,
  dailySpentLamports: 0n,
  rateCounts: new Map(),
  ...overrides
})

/** Evaluates a single policy holding `rules` (stored JSON) against the request. */
export const decideWith = (
  rules: ReadonlyArray<unknown>,
  req: Partial<EvaluateRequest> = {},
  state: Partial<EvaluationState> = {}
): PolicyEvaluation => evaluatePolicies([storedPolicy(rules)], request(req), snapshot(state))

export const decisionOf = (
  rules: ReadonlyArray<unknown>,
  req: Partial<EvaluateRequest> = {},
  state: Partial<EvaluationState> = {}
) => decideWith(rules, req, state).decision
