import type { Keypair, TransactionInstruction } from "@solana/web3.js"

/** What policy and risk need to know about a built transaction, without decoding it. */
export interface BuildFacts {
  /** the address receiving value (a wallet owner, or the new account created), if any */
  readonly destination: string | null
  /** the SPL mint involved, if any */
  readonly tokenMint: string | null
  /** lamports the intent moves out of the wallet (not fees), if any: a transfer amount, a new mint's rent.
   *  Rent of an associated token account the adapter adds is not included (it is not a chain fact it has). */
  readonly amountLamports: bigint | null
  /** token base units moved or minted, if any */
  readonly tokenAmount: bigint | null
  /** a swap: the pools its route trades in, the mint it receives, and when its quote was taken (ISO) */
  readonly pools?: ReadonlyArray<string>
  readonly outputMint?: string
  readonly quotedAt?: string
  /** a swap's total minimum output (base units of outputMint) */
  readonly minimumOut?: bigint
  /** a swap: its quote's deviation from the oracle price, when both mints have one */
  readonly oracleDeviationBps?: number
  /** a swap whose oracle price was too old to compare: why (the feed and its age) */
  readonly oracleUnavailable?: string
  /** price accounts the program judges the transaction on (a borrow's health check): aged again just before signing */
  readonly oracleAccounts?: ReadonlyArray<string>
  /** lamports the transaction pays the wallet (an unstake), for the delta guard's inflow */
  readonly expectedInflowLamports?: bigint
}

/**
 * An adapter's output: unsigned instructions (no compute budget: the pipeline prepends it),
 * extra signers the transaction needs besides the wallet, and the program ids it invokes.
 *
 * `extraSigners` holds ephemeral keypairs of accounts the transaction creates (a new mint):
 * the runtime requires the new account's signature for SystemProgram.createAccount. They
 * have no authority after the transaction (the wallet is the mint authority), are never
 * stored or logged, and must sign the same message as the wallet before submission.
 */
export interface BuiltTransaction {
  readonly instructions: ReadonlyArray<TransactionInstruction>
  readonly extraSigners: ReadonlyArray<Keypair>
  /** distinct program ids in first-use order, for the program allowlist */
  readonly programIds: ReadonlyArray<string>
  readonly facts: BuildFacts
}

export const programIdsOf = (instructions: ReadonlyArray<TransactionInstruction>): string[] => [
  ...new Set(instructions.map((ix) => ix.programId.toBase58()))
]

export const builtTransaction = (
  instructions: ReadonlyArray<TransactionInstruction>,
  facts: Partial<BuildFacts>,
  extraSigners: ReadonlyArray<Keypair> = []
): BuiltTransaction => ({
  instructions,
  extraSigners,
  programIds: programIdsOf(instructions),
  facts: {
    destination: facts.destination ?? null,
    tokenMint: facts.tokenMint ?? null,
    amountLamports: facts.amountLamports ?? null,
    tokenAmount: facts.tokenAmount ?? null,
    ...(facts.pools === undefined ? {} : { pools: facts.pools }),
    ...(facts.outputMint === undefined ? {} : { outputMint: facts.outputMint }),
    ...(facts.quotedAt === undefined ? {} : { quotedAt: facts.quotedAt }),
    ...(facts.minimumOut === undefined ? {} : { minimumOut: facts.minimumOut }),
    ...(facts.oracleDeviationBps === undefined ? {} : { oracleDeviationBps: facts.oracleDeviationBps }),
    ...(facts.oracleUnavailable === undefined ? {} : { oracleUnavailable: facts.oracleUnavailable }),
    ...(facts.oracleAccounts === undefined ? {} : { oracleAccounts: facts.oracleAccounts }),
    ...(facts.expectedInflowLamports === undefined ? {} : { expectedInflowLamports: facts.expectedInflowLamports })
  }
})
