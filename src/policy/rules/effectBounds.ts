/**
 * effect_bounds (beyond the spec's eleven, issue 31): bounds on the transaction's simulated whole effect
 * on the wallet: the SOL its own account loses (the fee included), each bounded mint's outflow, who may
 * gain value, and whether delegates, authority changes or closes may happen at all. Every violated bound
 * denies, with a reason naming the bound, the value and (for a change or a close) the instruction.
 *
 * POST /evaluate has no simulation: it judges the effect its fields describe (amountLamports leaving as
 * SOL, or as `tokenMint` when one is named, to `destination`), with no changes of control.
 */
import type { EvaluateRequest, EffectBoundsRule } from "../../../schemas/policy.js"
import type { ControlKind, TransactionEffect } from "../../../schemas/effect.js"
import { describeControlChange, describeInstruction } from "../effectJudgement.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, combineOutcomes, deny, type RuleOutcome } from "../outcome.js"

const AUTHORITY_KINDS: ReadonlySet<ControlKind> = new Set(["owner_program", "account_data", "token_owner", "close_authority", "mint_authority", "freeze_authority", "nonce_authority"])

/** The effect a what-if's fields describe. */
export const effectOfRequest = (request: EvaluateRequest): TransactionEffect => {
  const amount = request.amountLamports ?? 0n
  const mint = request.tokenMint
  const tokens = mint === undefined ? [] : [{ mint, amount }]
  const lamports = mint === undefined ? amount : 0n
  return {
    wallet: "", feePayer: "", feeLamports: 0n,
    sol: { beforeLamports: 0n, afterLamports: 0n },
    solOutflowLamports: lamports,
    tokenChanges: [],
    tokenOutflows: tokens,
    recipients: request.destination === undefined || amount === 0n ? [] : [{ address: request.destination, lamports, tokens }],
    controlChanges: [], closedAccounts: [], programs: request.programIds ?? [], instructions: []
  }
}

export const evaluateEffectBounds = (rule: EffectBoundsRule, ctx: RuleContext): RuleOutcome => {
  const effect = ctx.state.transaction?.effect ?? effectOfRequest(ctx.request)
  const outcomes: Array<RuleOutcome> = []
  if (rule.maxSolOutflowLamports !== undefined && effect.solOutflowLamports > rule.maxSolOutflowLamports) {
    outcomes.push(deny(`effect_bounds: the wallet would send ${effect.solOutflowLamports} lamports (fee included), above maxSolOutflowLamports ${rule.maxSolOutflowLamports}`))
  }
  for (const bound of rule.maxTokenOutflows ?? []) {
    const out = effect.tokenOutflows.find((outflow) => outflow.mint === bound.mint)?.amount ?? 0n
    if (out > bound.maxAmount) outcomes.push(deny(`effect_bounds: ${out} of mint ${bound.mint} would leave the wallet, above its maxAmount ${bound.maxAmount}`))
  }
  if (rule.allowedRecipients !== undefined) {
    for (const recipient of effect.recipients) {
      if (!rule.allowedRecipients.includes(recipient.address)) outcomes.push(deny(`effect_bounds: ${recipient.address} would receive value and is not in allowedRecipients`))
    }
  }
  for (const change of effect.controlChanges) {
    const forbidden = change.kind === "delegate" ? rule.forbidDelegates === true && change.to !== null : rule.forbidAuthorityChanges === true && AUTHORITY_KINDS.has(change.kind)
    if (forbidden) outcomes.push(deny(`effect_bounds (${change.kind === "delegate" ? "forbidDelegates" : "forbidAuthorityChanges"}): ${describeControlChange(effect, change)}`))
  }
  if (rule.forbidCloses === true) {
    for (const closed of effect.closedAccounts) {
      outcomes.push(deny(`effect_bounds (forbidCloses): ${describeInstruction(effect, closed.instruction)} would close the wallet's account ${closed.account}`))
    }
  }
  return outcomes.length === 0 ? ALLOW : combineOutcomes(outcomes)
}
