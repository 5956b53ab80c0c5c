/**
 * burn_token: burnChecked of `amount` base units from the wallet's associated token account of the mint.
 * The wallet owns the account, so it is the burn's only authority; the tokens leave the supply.
 */
import { createBurnCheckedInstruction, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { PublicKey } from "@solana/web3.js"
import { Either } from "effect"
import type { IntentPayload } from "../../../schemas/intent.js"
import type { AdapterInputError } from "../adapterError.js"
import { type BuiltTransaction, builtTransaction } from "../builtTransaction.js"
import { checkMint, type MintFacts, refuse } from "./splToken.js"

export interface BurnTokenInput {
  readonly wallet: PublicKey
  readonly intent: IntentPayload<"burn_token">
  readonly chain: {
    readonly mint: MintFacts
    /** the wallet's token balance in its associated account; null when that account is missing */
    readonly tokenBalance: bigint | null
  }
}

export const buildBurnToken = (input: BurnTokenInput): Either.Either<BuiltTransaction, AdapterInputError> =>
  Either.gen(function* () {
    const ctx = { protocol: "spl-token", operation: "burn_token" }
    const mint = new PublicKey(input.intent.mint)
    const amount = input.intent.amount
    yield* checkMint(ctx, mint, input.chain.mint)
    if (input.chain.tokenBalance === null) return yield* refuse(ctx, `wallet has no token account for mint ${mint.toBase58()}`, "mint")
    if (input.chain.tokenBalance < amount) {
      return yield* refuse(ctx, `insufficient token balance: have ${input.chain.tokenBalance}, need ${amount} of mint ${mint.toBase58()}`, "amount")
    }
    const account = getAssociatedTokenAddressSync(mint, input.wallet, false, TOKEN_PROGRAM_ID)
    const instruction = createBurnCheckedInstruction(account, mint, input.wallet, amount, input.chain.mint.decimals, [], TOKEN_PROGRAM_ID)
    return builtTransaction([instruction], { tokenMint: mint.toBase58(), tokenAmount: amount })
  })
