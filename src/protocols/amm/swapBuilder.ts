/**
 * The swap builder of amm-one, amm-two and the dex-aggregator: routes the intent over live pools, then
 * builds the wallet's instructions: its output token account (created when missing), SOL wrapped into
 * its wrapped-SOL account when SOL is the input, one AMM swap per route leg (each bounded on chain by its
 * minimum), and the wrapped-SOL account closed when SOL is either side (the wallet gets plain SOL back).
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  getAssociatedTokenAddressSync,
  NATIVE_MINT
} from "@solana/spl-token"
import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js"
import { Effect } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import type { AdapterRequest, Builders } from "../adapterRequest.js"
import { builtTransaction } from "../builtTransaction.js"
import { poolKeysOf, swapInstruction } from "./instructions.js"
import { AmmPrograms } from "./programs.js"
import { legMinimums, minimumOutFor } from "./quote.js"
import { routeSwap } from "./swapRoute.js"
import { OracleFreshness } from "../oracle/oracleFreshness.js"

const tokenBalance = (data: Buffer | undefined) => (data !== undefined && data.length >= 72 ? data.readBigUInt64LE(64) : null)

export const buildSwap = (request: AdapterRequest<"swap">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const { programs } = yield* AmmPrograms
    const { maxAgeSeconds } = yield* OracleFreshness
    const { intent, wallet } = request
    const { route, oracle, oracleUnavailable } = yield* routeSwap(facts.accounts, programs, {
      protocol: request.protocol, inputMint: intent.inputMint, outputMint: intent.outputMint, amount: intent.amount
    }, maxAgeSeconds)
    const input = new PublicKey(intent.inputMint)
    const output = new PublicKey(intent.outputMint)
    const inputNative = input.equals(NATIVE_MINT)
    const outputNative = output.equals(NATIVE_MINT)
    const inputAccount = getAssociatedTokenAddressSync(input, wallet)
    const outputAccount = getAssociatedTokenAddressSync(output, wallet)
    const [inputTokenAccount, outputTokenAccount] = yield* facts.accounts([inputAccount.toBase58(), outputAccount.toBase58()])
    // The wallet pays the rent of an output account it does not have yet (wrapped SOL is closed again at the end).
    const outputRent = outputNative || (outputTokenAccount !== null && outputTokenAccount !== undefined) ? 0n : yield* facts.rentExemptMinimum(165)
    if (!inputNative) {
      const balance = tokenBalance(inputTokenAccount?.data)
      if (balance === null || balance < intent.amount) {
        return yield* new AdapterInputError({
          protocol: request.protocol, operation: "swap", field: "amount",
          message: `insufficient token balance: have ${balance ?? 0n}, need ${intent.amount} of mint ${intent.inputMint}`
        })
      }
    }
    // The caller's minimumOut when given (the chain enforces it even if the pools moved), else the slippage bound.
    const minimumOut = intent.minimumOut ?? minimumOutFor(route.outAmount, intent.slippageBps)
    const minimums = legMinimums(route, minimumOut)
    const instructions: TransactionInstruction[] = [createAssociatedTokenAccountIdempotentInstruction(wallet, outputAccount, wallet, output)]
    if (inputNative) {
      instructions.push(
        createAssociatedTokenAccountIdempotentInstruction(wallet, inputAccount, wallet, input),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: inputAccount, lamports: intent.amount }),
        createSyncNativeInstruction(inputAccount)
      )
    }
    for (const [i, leg] of route.legs.entries()) {
      const keys = poolKeysOf(new PublicKey(leg.programId), new PublicKey(leg.pool), {
        mintA: new PublicKey(leg.view.mintA.address), mintB: new PublicKey(leg.view.mintB.address),
        vaultA: new PublicKey(leg.view.vaultA), vaultB: new PublicKey(leg.view.vaultB), lpMint: new PublicKey(leg.view.lpMint)
      })
      instructions.push(swapInstruction({ keys, user: wallet, inputMint: input, amountIn: leg.inAmount, minimumOut: minimums[i] ?? 0n }))
    }
    if (inputNative || outputNative) {
      instructions.push(createCloseAccountInstruction(getAssociatedTokenAddressSync(NATIVE_MINT, wallet), wallet, wallet))
    }
    return builtTransaction(instructions, {
      pools: route.legs.map((leg) => leg.pool),
      outputMint: intent.outputMint,
      quotedAt: new Date().toISOString(),
      minimumOut,
      ...(oracle === null ? {} : { oracleDeviationBps: oracle.deviationBps }),
      ...(oracleUnavailable === null ? {} : { oracleUnavailable }),
      tokenMint: intent.inputMint,
      tokenAmount: intent.amount,
      // SOL leaving the wallet besides fees: the SOL sold and the new output account's rent (none when SOL is bought)
      ...(outputNative ? {} : (inputNative ? intent.amount : 0n) + outputRent > 0n ? { amountLamports: (inputNative ? intent.amount : 0n) + outputRent } : {})
    })
  })

export const swapBuilders: Builders = { swap: buildSwap }
