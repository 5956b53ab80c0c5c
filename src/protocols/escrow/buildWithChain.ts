/**
 * The escrow branch of the pipeline's adapter dispatch: reads the chain facts an escrow build needs
 * (the escrow account, its payees, rent minimums) through ChainFacts, then calls the pure adapter.
 */
import { PublicKey } from "@solana/web3.js"
import { Clock, Effect, Either } from "effect"
import type { ChainError } from "../../chain/chainClient.js"
import { type AccountFacts, ChainFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import type { AdapterRequest, Builders } from "../adapterRequest.js"
import type { BuiltTransaction } from "../builtTransaction.js"
import { buildEscrow, type EscrowAccountFact, type EscrowIntent, escrowRefOf, type EscrowTransactionType } from "./adapter.js"
import { ESCROW_ACCOUNT_SIZE } from "./layout.js"
import type { PayeeAccount } from "./payouts.js"
import { EscrowProgram } from "./program.js"
import { decodeEscrowState, type EscrowState } from "./state.js"

/** What is at an escrow address (shared with the indexer and the helpers). */
export const escrowAccountFact = (account: AccountFacts | null, programId: PublicKey): EscrowAccountFact => {
  if (account === null) return { kind: "missing" }
  if (account.owner !== programId.toBase58()) return { kind: "not-escrow", owner: account.owner }
  try {
    return { kind: "escrow", state: decodeEscrowState(account.data) }
  } catch {
    return { kind: "not-escrow", owner: account.owner }
  }
}

const payeeAccounts = (state: EscrowState) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const addresses = [...new Set([state.creator, state.counterparty, state.feeRecipient].map((key) => key.toBase58()))]
    const accounts = yield* facts.accounts(addresses)
    const payees = new Map<string, PayeeAccount>()
    for (const [i, address] of addresses.entries()) {
      const account = accounts[i] ?? null
      const rentExemptMinimum = yield* facts.rentExemptMinimum(account === null ? 0 : account.data.length)
      payees.set(address, { exists: account !== null, lamports: account?.lamports ?? 0n, rentExemptMinimum })
    }
    return payees
  })

export const buildEscrowWithChain = (
  request: AdapterRequest<EscrowTransactionType>
): Effect.Effect<BuiltTransaction, AdapterInputError | ChainError, ChainFacts | EscrowProgram> =>
  Effect.gen(function* () {
    const program = yield* EscrowProgram
    const ctx = { protocol: request.protocol, operation: request.type }
    if (!program.configured) {
      return yield* new AdapterInputError({ ...ctx, message: "escrow is not configured on this cluster: set ESCROW_PROGRAM_ID" })
    }
    const facts = yield* ChainFacts
    // the registry decoded `intent` by `type`'s schema: the pair is one EscrowIntent
    const typed = { type: request.type, intent: request.intent } as EscrowIntent
    const target = escrowRefOf(typed.intent, program.programId)
    const [account] = yield* facts.accounts([target.address.toBase58()])
    const escrow = escrowAccountFact(account ?? null, program.programId)
    const payees = escrow.kind === "escrow" ? yield* payeeAccounts(escrow.state) : new Map<string, PayeeAccount>()
    const escrowRentExemptMinimum = yield* facts.rentExemptMinimum(ESCROW_ACCOUNT_SIZE)
    const nowMs = yield* Clock.currentTimeMillis
    const built = buildEscrow({
      ...typed,
      wallet: request.wallet,
      chain: { programId: program.programId, nowUnixSec: BigInt(Math.floor(nowMs / 1000)), escrow, escrowRentExemptMinimum, payees }
    })
    return yield* Either.match(built, { onLeft: Effect.fail, onRight: Effect.succeed })
  })

/** The escrow protocol's builders: one chain-reading path for all eight operations. */
export const escrowBuilders: Builders = {
  create_escrow: buildEscrowWithChain,
  accept_escrow: buildEscrowWithChain,
  release_escrow: buildEscrowWithChain,
  refund_escrow: buildEscrowWithChain,
  dispute_escrow: buildEscrowWithChain,
  resolve_dispute: buildEscrowWithChain,
  create_milestone_escrow: buildEscrowWithChain,
  release_milestone: buildEscrowWithChain
}
