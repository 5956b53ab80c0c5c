/**
 * flash_loan_bundle (docs/decisions/lending.md): flash_borrow from the mint's reserve into the wallet's token
 * account, the caller's instructions (the custom_instruction_bundle format and guards: no foreign signer, no
 * compute budget, no Assign/Allocate of the wallet, every program they name checked by program_allowlist),
 * then flash_repay of the loan plus its fee, all in ONE transaction. The program itself refuses a loan that no
 * later flash_repay pays back. For SOL the fee is wrapped into the account before the repayment.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction, createCloseAccountInstruction, createSyncNativeInstruction, NATIVE_MINT
} from "@solana/spl-token"
import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js"
import { Effect } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import type { AdapterRequest } from "../adapterRequest.js"
import { builtTransaction } from "../builtTransaction.js"
import { buildRawInstructions, type LocatedInstruction, programsNamedAsAccounts } from "../rawInstructions.js"
import { walletTokenAccount } from "./walletToken.js"
import { flashBorrowInstruction, flashRepayInstruction } from "./instructions.js"
import { flashFee } from "./layout.js"
import { readReserve } from "./marketReads.js"
import { LendingMarketProgram } from "./program.js"

const TOKEN_ACCOUNT_SIZE = 165

export const buildFlashLoanBundle = (request: AdapterRequest<"flash_loan_bundle">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const program = yield* LendingMarketProgram
    const { wallet, intent } = request
    const located: ReadonlyArray<LocatedInstruction> = intent.instructions.map((spec, i) => ({ spec, at: `instructions[${i}].` }))
    // the caller's part, under the raw-instruction guards (refused at build before anything else is read)
    yield* buildRawInstructions(request.type, request.protocol, wallet, located)
    const cpiPrograms = yield* programsNamedAsAccounts(located)
    const callers = yield* buildRawInstructions(request.type, request.protocol, wallet, located, cpiPrograms)

    const mint = new PublicKey(intent.mint)
    const reserve = yield* readReserve(facts.accounts, program, mint, request.type)
    const token = yield* walletTokenAccount(wallet, mint)
    const isSol = mint.equals(NATIVE_MINT)
    const fee = flashFee(intent.amount, reserve.state.flashFeeBps)
    const owed = intent.amount + fee
    const instructions: TransactionInstruction[] = [
      createAssociatedTokenAccountIdempotentInstruction(wallet, token.address, wallet, mint),
      flashBorrowInstruction(program.programId, mint, reserve.state.vault, token.address, intent.amount),
      ...callers.instructions,
      ...(isSol ? [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: token.address, lamports: fee }), createSyncNativeInstruction(token.address)] : []),
      flashRepayInstruction(program.programId, wallet, mint, reserve.state.vault, token.address, owed),
      ...(isSol && !token.exists ? [createCloseAccountInstruction(token.address, wallet, wallet)] : [])
    ]
    const rent = !token.exists && !isSol ? yield* facts.rentExemptMinimum(TOKEN_ACCOUNT_SIZE) : 0n
    // SOL leaving the wallet: what the caller's System instructions send, the fee in SOL, a new token account's rent
    const lamports = (callers.facts.amountLamports ?? 0n) + (isSol ? fee : 0n) + rent
    const built = builtTransaction(instructions, {
      destination: callers.facts.destination ?? reserve.address.toBase58(),
      tokenMint: intent.mint,
      tokenAmount: intent.amount,
      ...(lamports > 0n ? { amountLamports: lamports } : {})
    })
    return { ...built, programIds: [...new Set([...built.programIds, ...cpiPrograms])] }
  })
