import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToCheckedInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js"
import { Either } from "effect"
import { AdapterInputError, type FieldContext } from "../adapterError.js"
import { type BuiltTransaction, builtTransaction } from "../builtTransaction.js"
import type { IntentPayload } from "../../../schemas/intent.js"
import { TOKEN_PROGRAM } from "../programIds.js"

const PROTOCOL = "spl-token"

/** Facts about a mint the pipeline reads (getAccountInfo of the mint) before building. */
export interface MintFacts {
  /** owner program of the mint account; only the SPL Token program is supported */
  readonly programId: string
  readonly decimals: number
  /** null when the mint has no authority (fixed supply) */
  readonly mintAuthority: string | null
}

export const refuse = (ctx: FieldContext, message: string, field?: string) =>
  Either.left(new AdapterInputError({ ...ctx, ...(field === undefined ? {} : { field }), message }))

export const checkMint = (ctx: FieldContext, mint: PublicKey, facts: MintFacts): Either.Either<void, AdapterInputError> => {
  if (facts.programId !== TOKEN_PROGRAM) {
    return refuse(ctx, `mint ${mint.toBase58()} is owned by ${facts.programId}, not the SPL Token program ${TOKEN_PROGRAM}`, "mint")
  }
  if (!Number.isInteger(facts.decimals) || facts.decimals < 0 || facts.decimals > 255) {
    return refuse(ctx, `mint ${mint.toBase58()} reports invalid decimals ${facts.decimals}`, "mint")
  }
  return Either.void
}

/** The owner's associated token account; refuses an owner that is not a wallet address. */
const ownerTokenAccount = (ctx: FieldContext, mint: PublicKey, owner: PublicKey, field: string) =>
  PublicKey.isOnCurve(owner.toBytes())
    ? Either.right(getAssociatedTokenAddressSync(mint, owner, false, TOKEN_PROGRAM_ID))
    : refuse(ctx, `intent.${field} ${owner.toBase58()} is not a wallet address (off-curve); give the owner, not a token account or PDA`, field)

// ---- transfer_spl --------------------------------------------------------------------------

export interface TransferSplChainFacts {
  readonly mint: MintFacts
  /** the wallet's token balance in its associated account; null when that account is missing */
  readonly sourceTokenBalance: bigint | null
  readonly destinationTokenAccountExists: boolean
  /** owner program of the `destination` account itself; null when it does not exist */
  readonly destinationAccountProgramId: string | null
}

export interface TransferSplInput {
  readonly wallet: PublicKey
  readonly intent: IntentPayload<"transfer_spl">
  readonly chain: TransferSplChainFacts
}

/**
 * transfer_spl: transferChecked from the wallet's associated token account to the
 * destination owner's, creating the latter (idempotently, the wallet pays rent) when missing.
 */
export const buildTransferSpl = (input: TransferSplInput): Either.Either<BuiltTransaction, AdapterInputError> =>
  Either.gen(function* () {
    const ctx = { protocol: PROTOCOL, operation: "transfer_spl" }
    const destination = new PublicKey(input.intent.destination)
    const mint = new PublicKey(input.intent.mint)
    const amount = input.intent.amount
    const { chain } = input
    yield* checkMint(ctx, mint, chain.mint)
    if (chain.destinationAccountProgramId === TOKEN_PROGRAM) {
      return yield* refuse(ctx, `intent.destination ${destination.toBase58()} is a token account; give its owner's address`, "destination")
    }
    if (destination.equals(input.wallet)) return yield* refuse(ctx, "intent.destination is the wallet itself", "destination")
    if (chain.sourceTokenBalance === null) {
      return yield* refuse(ctx, `wallet has no token account for mint ${mint.toBase58()}`, "mint")
    }
    if (chain.sourceTokenBalance < amount) {
      return yield* refuse(ctx, `insufficient token balance: have ${chain.sourceTokenBalance}, need ${amount} of mint ${mint.toBase58()}`, "amount")
    }
    const source = getAssociatedTokenAddressSync(mint, input.wallet, false, TOKEN_PROGRAM_ID)
    const target = yield* ownerTokenAccount(ctx, mint, destination, "destination")
    const instructions = [
      ...(chain.destinationTokenAccountExists
        ? []
        : [createAssociatedTokenAccountIdempotentInstruction(input.wallet, target, destination, mint, TOKEN_PROGRAM_ID)]),
      createTransferCheckedInstruction(source, mint, target, input.wallet, amount, chain.mint.decimals, [], TOKEN_PROGRAM_ID)
    ]
    return builtTransaction(instructions, {
      destination: destination.toBase58(),
      tokenMint: mint.toBase58(),
      tokenAmount: amount
    })
  })

// ---- create_mint ---------------------------------------------------------------------------

export interface CreateMintInput {
  readonly wallet: PublicKey
  readonly intent: IntentPayload<"create_mint">
  /** getMinimumBalanceForRentExemption(MINT_SIZE) */
  readonly mintRentExemptMinimum: bigint
  /** the new mint account; generated when absent (tests pass one for determinism) */
  readonly mintKeypair?: Keypair
}

/**
 * create_mint: createAccount (wallet pays rent, Token program owns 82 bytes) then
 * InitializeMint2 with the wallet as mint authority. The new mint account must sign:
 * its keypair is returned in `extraSigners`.
 */
export const buildCreateMint = (input: CreateMintInput): Either.Either<BuiltTransaction, AdapterInputError> =>
  Either.gen(function* () {
    const ctx = { protocol: PROTOCOL, operation: "create_mint" }
    const decimals = input.intent.decimals
    const freezeAuthority = input.intent.freezeAuthority === undefined ? null : new PublicKey(input.intent.freezeAuthority)
    if (input.mintRentExemptMinimum <= 0n) return yield* refuse(ctx, "mint rent-exempt minimum must be positive")
    const mint = input.mintKeypair ?? Keypair.generate()
    const instructions = [
      SystemProgram.createAccount({
        fromPubkey: input.wallet,
        newAccountPubkey: mint.publicKey,
        lamports: Number(input.mintRentExemptMinimum),
        space: MINT_SIZE,
        programId: TOKEN_PROGRAM_ID
      }),
      createInitializeMint2Instruction(mint.publicKey, decimals, input.wallet, freezeAuthority, TOKEN_PROGRAM_ID)
    ]
    return builtTransaction(
      instructions,
      { destination: mint.publicKey.toBase58(), tokenMint: mint.publicKey.toBase58(), amountLamports: input.mintRentExemptMinimum },
      [mint]
    )
  })

// ---- mint_token ----------------------------------------------------------------------------

export interface MintTokenChainFacts {
  readonly mint: MintFacts
  /** whether the receiving owner's associated token account exists */
  readonly destinationTokenAccountExists: boolean
}

export interface MintTokenInput {
  readonly wallet: PublicKey
  readonly intent: IntentPayload<"mint_token">
  readonly chain: MintTokenChainFacts
}

/**
 * mint_token: MintToChecked of `amount` base units into the associated token account of
 * `destination` (default: the wallet), created idempotently first when missing. The wallet
 * must be the mint authority.
 */
export const buildMintToken = (input: MintTokenInput): Either.Either<BuiltTransaction, AdapterInputError> =>
  Either.gen(function* () {
    const ctx = { protocol: PROTOCOL, operation: "mint_token" }
    const mint = new PublicKey(input.intent.mint)
    const amount = input.intent.amount
    const owner = input.intent.destination === undefined ? input.wallet : new PublicKey(input.intent.destination)
    const { chain } = input
    yield* checkMint(ctx, mint, chain.mint)
    if (chain.mint.mintAuthority !== input.wallet.toBase58()) {
      return yield* refuse(
        ctx,
        chain.mint.mintAuthority === null
          ? `mint ${mint.toBase58()} has no mint authority (fixed supply)`
          : `wallet ${input.wallet.toBase58()} is not the mint authority of ${mint.toBase58()}`,
        "mint"
      )
    }
    const target = yield* ownerTokenAccount(ctx, mint, owner, "destination")
    const instructions = [
      ...(chain.destinationTokenAccountExists
        ? []
        : [createAssociatedTokenAccountIdempotentInstruction(input.wallet, target, owner, mint, TOKEN_PROGRAM_ID)]),
      createMintToCheckedInstruction(mint, target, input.wallet, amount, chain.mint.decimals, [], TOKEN_PROGRAM_ID)
    ]
    return builtTransaction(instructions, { destination: owner.toBase58(), tokenMint: mint.toBase58(), tokenAmount: amount })
  })
