/**
 * The relay signs as fee payer only what costs its fee payer the fee and nothing else (issue 31: one
 * judgement for every signing path). The transaction is simulated with the accounts it can write read
 * before and after and its inner instructions, and its whole effect on the fee payer is analysed as the
 * pipeline analyses a wallet's (src/policy/effect): refused when the fee payer would lose more than the
 * fee, when control over one of its accounts would change hands, when one of them would be closed, when
 * an instruction is neither explained nor of an allowed program, and for any durable-nonce transaction
 * (signed bytes that never expire would spend the fee payer's SOL whenever someone sends them).
 */
import type { TransactionEffect } from "../../../schemas/effect.js"
import { accountsToRead, analyzeEffect } from "../../policy/effect/analyzeEffect.js"
import type { AccountState } from "../../policy/effect/accountState.js"
import { programCatalog } from "../../policy/effect/programCatalog.js"
import { describeControlChange, judgeEffect } from "../../policy/effectJudgement.js"
import type { MessageView } from "../../protocols/messageView.js"

interface RpcAccount {
  readonly lamports: number
  readonly owner: string
  readonly data: [string, string]
}

type LedgerCall = <A>(method: string, params: ReadonlyArray<unknown>) => Promise<A>

const catalog = programCatalog()

const asState = (account: RpcAccount | null | undefined): AccountState | null =>
  account === null || account === undefined ? null : { lamports: BigInt(account.lamports), owner: account.owner, data: Buffer.from(account.data[0], "base64") }

/** Why the fee payer must not sign (empty: it may). */
export const feePayerRefusals = (effect: TransactionEffect, allowedPrograms: ReadonlySet<string>): Array<string> => {
  const reasons: Array<string> = []
  if (effect.solOutflowLamports > effect.feeLamports) {
    reasons.push(`the fee payer would lose ${effect.solOutflowLamports} lamports, more than the fee ${effect.feeLamports}`)
  }
  for (const change of effect.controlChanges) reasons.push(describeControlChange(effect, change))
  for (const closed of effect.closedAccounts) reasons.push(`the fee payer's account ${closed.account} would be closed`)
  if (effect.durableNonce !== undefined) reasons.push(`durable nonce ${effect.durableNonce.account}: the relay does not sign transactions that never expire`)
  const judged = judgeEffect({ ...effect, durableNonce: undefined, controlChanges: [], closedAccounts: [] }, allowedPrograms)
  return [...reasons, ...judged.reasons]
}

/**
 * Simulates the transaction for its effect on `feePayer`; throws the simulation's failure, returns the
 * reasons to refuse (empty: the fee payer may sign).
 */
export const simulateForFeePayer = async (
  ledger: LedgerCall,
  unsignedBase64: string,
  view: MessageView,
  feePayer: string,
  allowedPrograms: ReadonlySet<string>
): Promise<{ readonly err: unknown } | { readonly refusals: Array<string> }> => {
  const accounts = accountsToRead(view, feePayer)
  const before = await ledger<{ value: Array<RpcAccount | null> }>("getMultipleAccounts", [accounts, { encoding: "base64", commitment: "confirmed" }])
  const simulated = await ledger<{ value: { err: unknown; accounts?: Array<RpcAccount | null> | null; innerInstructions?: unknown } }>("simulateTransaction", [
    unsignedBase64,
    { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed", innerInstructions: true, accounts: { addresses: accounts, encoding: "base64" } }
  ])
  if (simulated.value.err !== null && simulated.value.err !== undefined) return { err: simulated.value.err }
  const effect = analyzeEffect({
    wallet: feePayer,
    message: view,
    accounts,
    before: before.value.map(asState),
    after: (simulated.value.accounts ?? []).map(asState),
    innerInstructions: simulated.value.innerInstructions ?? null,
    catalog
  })
  return { refusals: feePayerRefusals(effect, allowedPrograms) }
}
