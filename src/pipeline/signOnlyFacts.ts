/**
 * Policy facts of a transaction handed in for signing (POST /wallets/<id>/sign), from its simulated
 * effect (src/policy/effect): the SOL that leaves the wallet (the fee included), who gains value, the
 * tokens that leave it. One destination and one token mint at most (the policy request has one of
 * each, for the address and token rules): anything more is refused, fail closed. The whole effect
 * (authorities, closes, nonces, programs) is judged by policy beside these facts.
 */
import type { TransactionEffect } from "../../schemas/effect.js"

export interface SignOnlyFacts {
  readonly amountLamports: bigint
  readonly destination: string | undefined
  readonly tokenMint: string | undefined
  readonly tokenAmount: bigint | undefined
  readonly destinations: ReadonlyArray<string>
}

/** Facts, or a refusal message when the transaction does more than one policy request can describe. */
export const signOnlyFacts = (effect: TransactionEffect): SignOnlyFacts | { readonly refused: string } => {
  const destinations = effect.recipients.map((recipient) => recipient.address)
  const outflows = effect.tokenOutflows.filter((outflow) => outflow.amount > 0n)
  if (destinations.length > 1) return { refused: `the transaction pays ${destinations.length} destinations (${destinations.join(", ")}); signing is evaluated for at most one` }
  if (outflows.length > 1) return { refused: `the transaction moves ${outflows.length} token mints out of the wallet; signing is evaluated for at most one` }
  const [mintOut] = outflows
  return {
    amountLamports: effect.solOutflowLamports,
    destination: destinations[0],
    tokenMint: mintOut?.mint,
    tokenAmount: mintOut?.amount,
    destinations
  }
}
