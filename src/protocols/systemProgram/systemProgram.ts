import { PublicKey, SystemProgram } from "@solana/web3.js"
import { Either } from "effect"
import { AdapterInputError } from "../adapterError.js"
import { type BuiltTransaction, builtTransaction } from "../builtTransaction.js"
import type { IntentPayload } from "../../../schemas/intent.js"

const PROTOCOL = "system-program"

/** Rent-exempt minimum of a 0-byte system account (getMinimumBalanceForRentExemption(0) on mainnet rent). */
export const SYSTEM_ACCOUNT_RENT_EXEMPT_MINIMUM = 890_880n

export interface RentExemptTransferCheck {
  readonly destination: string
  readonly destinationExists: boolean
  /** 0 when the destination does not exist */
  readonly destinationLamports: bigint
  readonly lamports: bigint
  /** getMinimumBalanceForRentExemption(data length of the destination; 0 for a new account) */
  readonly rentExemptMinimum: bigint
}

/**
 * The runtime refuses a transaction that leaves an account funded but below its rent-exempt
 * minimum. Null when the transfer is fine, else the reason it would fail.
 */
export const checkRentExemptTransfer = (check: RentExemptTransferCheck): string | null => {
  const { destination, lamports, rentExemptMinimum } = check
  if (!check.destinationExists || check.destinationLamports === 0n) {
    return lamports < rentExemptMinimum
      ? `transfer of ${lamports} lamports to unfunded destination ${destination} is below the rent-exempt minimum ${rentExemptMinimum}`
      : null
  }
  const after = check.destinationLamports + lamports
  // an account already at or above the minimum stays there; one below it must reach it
  return check.destinationLamports < rentExemptMinimum && after < rentExemptMinimum
    ? `transfer of ${lamports} lamports would leave destination ${destination} at ${after} lamports, below the rent-exempt minimum ${rentExemptMinimum}`
    : null
}

/** Chain facts the pipeline reads before building a SOL transfer. */
export interface TransferSolChainFacts {
  readonly destinationExists: boolean
  readonly destinationLamports: bigint
  readonly rentExemptMinimum: bigint
}

export interface TransferSolInput {
  readonly wallet: PublicKey
  /** decoded by the intent schema: a base58 destination, lamports > 0 */
  readonly intent: IntentPayload<"transfer_sol">
  readonly chain: TransferSolChainFacts
}

/** transfer_sol: one SystemProgram.transfer from the wallet to `destination`. */
export const buildTransferSol = (input: TransferSolInput): Either.Either<BuiltTransaction, AdapterInputError> =>
  Either.gen(function* () {
    const ctx = { protocol: PROTOCOL, operation: "transfer_sol" }
    const destination = new PublicKey(input.intent.destination)
    const lamports = input.intent.lamports
    if (destination.equals(input.wallet)) {
      return yield* Either.left(
        new AdapterInputError({
          ...ctx,
          field: "destination",
          message: "intent.destination is the wallet's own address: a transfer to itself moves no lamports and only pays the fee; send to another address"
        })
      )
    }
    const rentProblem = checkRentExemptTransfer({ destination: destination.toBase58(), lamports, ...input.chain })
    if (rentProblem !== null) {
      return yield* Either.left(new AdapterInputError({ ...ctx, field: "lamports", message: rentProblem }))
    }
    const transfer = SystemProgram.transfer({ fromPubkey: input.wallet, toPubkey: destination, lamports })
    return builtTransaction([transfer], { destination: destination.toBase58(), amountLamports: lamports })
  })
