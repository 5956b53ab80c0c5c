/**
 * What every signing path refuses whatever the wallet's policies say (issue 31, docs/decisions/policy.md
 * [effect]), judged on the transaction's whole effect, pure:
 *  - an instruction the service cannot explain (unknown program, or an action of a known program it does
 *    not decode), unless a program_allowlist rule of one of the wallet's active policies names the program;
 *  - the wallet's own account given to a program (Assign) or given data (Allocate);
 *  - control over an account of the wallet handed to someone else: a token account's owner, delegate or
 *    close authority, a mint's mint or freeze authority, a durable nonce's authority;
 *  - an account of the wallet closed with its lamports going elsewhere;
 *  - a durable-nonce transaction whose nonce the wallet does not control (its signed bytes never expire
 *    and someone else decides when they land); one the wallet controls needs approval.
 * Each reason names the instruction (index, program, action) that does it.
 */
import type { ControlChange, EffectInstruction, InstructionRef, TransactionEffect } from "../../schemas/effect.js"
import type { CompiledPolicy } from "./compileRules.js"
import { ALLOW, combineOutcomes, deny, requireApproval, type RuleOutcome } from "./outcome.js"
import type { TransactionRiskInput } from "./transactionRisk.js"

/** Programs the wallet's active policies name in a program_allowlist: allowed even when unexplained. */
export const explicitlyAllowedPrograms = (policies: ReadonlyArray<CompiledPolicy>, walletId: string): ReadonlySet<string> =>
  new Set(
    policies.flatMap((policy) =>
      policy.active && policy.walletId === walletId
        ? policy.rules.flatMap((compiled) => (compiled.ok && compiled.rule.type === "program_allowlist" ? compiled.rule.programIds : []))
        : []
    )
  )

const sameRef = (a: InstructionRef, b: EffectInstruction) => a.index === b.index && a.inner === b.inner

/** "instruction 2 (Token Program: approve)", or "instruction 1, inner 0 (System Program: transfer)". */
export const describeInstruction = (effect: TransactionEffect, ref: InstructionRef | undefined): string => {
  if (ref === undefined) return "the transaction"
  const ix = effect.instructions.find((candidate) => sameRef(ref, candidate))
  const where = ref.inner === undefined ? `instruction ${ref.index}` : `instruction ${ref.index}, inner ${ref.inner}`
  return ix === undefined ? where : `${where} (${ix.program} ${ix.programId}: ${ix.action})`
}

const CONTROL_NAMES: Record<ControlChange["kind"], string> = {
  owner_program: "owner program",
  account_data: "data",
  token_owner: "owner",
  delegate: "delegate",
  close_authority: "close authority",
  mint_authority: "mint authority",
  freeze_authority: "freeze authority",
  nonce_authority: "nonce authority"
}

/** A control change that hands something of the wallet's to someone else (or gives its account away). */
export const isHandover = (change: ControlChange, wallet: string): boolean =>
  change.account === wallet ? true : change.to !== null && change.to !== wallet

export const describeControlChange = (effect: TransactionEffect, change: ControlChange): string => {
  const by = describeInstruction(effect, change.instruction)
  if (change.account === effect.wallet) {
    return change.kind === "owner_program"
      ? `${by} would assign the wallet's account to program ${change.to} (the wallet would lose its SOL and could never pay a fee again)`
      : `${by} would give the wallet's account data (${change.from} -> ${change.to}), so it could no longer pay fees or send SOL`
  }
  return `${by} would hand the ${CONTROL_NAMES[change.kind]} of the wallet's account ${change.account} from ${change.from ?? "nobody"} to ${change.to ?? "nobody"}`
}

export const judgeEffect = (effect: TransactionEffect, allowedPrograms: ReadonlySet<string>): RuleOutcome => {
  const outcomes: Array<RuleOutcome> = []
  for (const ix of effect.instructions) {
    if (ix.explained || allowedPrograms.has(ix.programId)) continue
    outcomes.push(deny(
      `${describeInstruction(effect, ix)} cannot be explained: the service does not know what it does to the wallet ` +
      `(a program_allowlist rule of the wallet's policy naming ${ix.programId} allows it)`
    ))
  }
  for (const change of effect.controlChanges) {
    if (isHandover(change, effect.wallet)) outcomes.push(deny(describeControlChange(effect, change)))
  }
  for (const closed of effect.closedAccounts) {
    if (closed.destination === effect.wallet) continue
    outcomes.push(deny(`${describeInstruction(effect, closed.instruction)} would close the wallet's account ${closed.account} and send its ${closed.lamports} lamports to ${closed.destination ?? "an account the service cannot name"}`))
  }
  const nonce = effect.durableNonce
  if (nonce !== undefined) {
    outcomes.push(
      nonce.authority === effect.wallet
        ? requireApproval(`durable nonce ${nonce.account}: the signed transaction never expires, so a person approves it first`)
        : deny(`durable nonce ${nonce.account} is controlled by ${nonce.authority}, not the wallet: the signed transaction would never expire and someone else would decide when it lands`)
    )
  }
  return outcomes.length === 0 ? ALLOW : combineOutcomes(outcomes)
}

/** The judgement of a transaction's simulated effect (none for a message, which has no effect on chain). */
export const effectCheck = (input: Pick<TransactionRiskInput, "facts" | "walletId">, policies: ReadonlyArray<CompiledPolicy>): RuleOutcome =>
  input.facts.effect === undefined ? ALLOW : judgeEffect(input.facts.effect, explicitlyAllowedPrograms(policies, input.walletId))
