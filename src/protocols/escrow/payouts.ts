/**
 * What an escrow operation pays out, computed from the escrow's state exactly as the program does
 * (programs/escrow/payout.c), and whether every payee ends the transaction rent-exempt: the runtime
 * refuses a transaction that leaves a new account funded below its minimum, so we refuse it first.
 */
import type { PublicKey } from "@solana/web3.js"
import { checkRentExemptTransfer } from "../systemProgram/systemProgram.js"
import type { EscrowState } from "./state.js"

export interface Payout {
  readonly role: "counterparty" | "fee recipient" | "creator"
  readonly address: PublicKey
  readonly lamports: bigint
}

export interface PayeeAccount {
  readonly exists: boolean
  readonly lamports: bigint
  /** getMinimumBalanceForRentExemption(data length; 0 for a new account) */
  readonly rentExemptMinimum: bigint
}

/** The program's fee: floor(gross × feeBps / 10000) of each payout to the counterparty. */
export const escrowFee = (gross: bigint, feeBps: number): bigint => (gross * BigInt(feeBps)) / 10_000n

const toCounterparty = (state: EscrowState, gross: bigint): Payout[] => {
  const fee = escrowFee(gross, state.feeBps)
  return [
    { role: "counterparty", address: state.counterparty, lamports: gross - fee },
    { role: "fee recipient", address: state.feeRecipient, lamports: fee }
  ]
}

const toCreator = (state: EscrowState): Payout[] => [{ role: "creator", address: state.creator, lamports: state.remaining }]

export type PayoutOperation =
  | { readonly type: "release_escrow" }
  | { readonly type: "release_milestone"; readonly index: number }
  | { readonly type: "refund_escrow" }
  | { readonly type: "resolve_dispute"; readonly decision: "release" | "refund" }

/** Payouts if the operation succeeds; empty when the program would refuse it anyway (it says why). */
export const payoutsOf = (state: EscrowState, operation: PayoutOperation): Payout[] => {
  switch (operation.type) {
    case "release_escrow":
      return toCounterparty(state, state.remaining)
    case "release_milestone": {
      const milestone = state.milestones[operation.index]
      return milestone === undefined || milestone.released ? [] : toCounterparty(state, milestone.amount)
    }
    case "refund_escrow":
      return toCreator(state)
    case "resolve_dispute":
      return operation.decision === "release" ? toCounterparty(state, state.remaining) : toCreator(state)
  }
}

/** The first payee that would end below its rent-exempt minimum, as a readable reason; null when all are fine. */
export const payoutRentProblem = (payouts: ReadonlyArray<Payout>, payees: ReadonlyMap<string, PayeeAccount>): string | null => {
  // One account may hold two roles (counterparty and fee recipient): it receives the sum.
  const byAddress = new Map<string, { roles: string[]; lamports: bigint }>()
  for (const payout of payouts) {
    const key = payout.address.toBase58()
    const entry = byAddress.get(key) ?? { roles: [], lamports: 0n }
    byAddress.set(key, { roles: [...entry.roles, payout.role], lamports: entry.lamports + payout.lamports })
  }
  for (const [address, { roles, lamports }] of byAddress) {
    if (lamports === 0n) continue // nothing moves: the account is untouched
    const account = payees.get(address)
    if (account === undefined) return `the ${roles.join(" and ")} account ${address} could not be read`
    const problem = checkRentExemptTransfer({
      destination: address,
      destinationExists: account.exists,
      destinationLamports: account.lamports,
      lamports,
      rentExemptMinimum: account.rentExemptMinimum
    })
    if (problem !== null) return `${roles.join(" and ")} payout: ${problem}; fund that account first`
  }
  return null
}
