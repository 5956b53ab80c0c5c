/**
 * stake / unstake builders of liquid-staking. Each reads the live pool, computes what the exchange rate gives
 * now, and bounds the instruction on chain by that amount less STAKE_SLIPPAGE_BPS (the rate only moves by
 * rewards and fees between build and landing). Stake creates the wallet's LST account when missing (its rent
 * is part of the SOL that leaves the wallet); unstake is instant and pays SOL minus the pool's fee.
 */
import { createAssociatedTokenAccountIdempotentInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Effect } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import type { AdapterRequest, Builders } from "../adapterRequest.js"
import { builtTransaction } from "../builtTransaction.js"
import { stakeInstruction, unstakeInstruction } from "./instructions.js"
import { lamportsForUnstake, lstForStake } from "./layout.js"
import { readStakePool } from "./poolReads.js"
import { LiquidStakingProgram } from "./program.js"

/** How far below the quoted amount the chain may still fill (50 bps). */
export const STAKE_SLIPPAGE_BPS = 50n
const TOKEN_ACCOUNT_SIZE = 165

const withSlippage = (amount: bigint) => amount - (amount * STAKE_SLIPPAGE_BPS) / 10_000n

export const buildStake = (request: AdapterRequest<"stake">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const program = yield* LiquidStakingProgram
    const pool = yield* readStakePool(facts.accounts, program, "stake")
    const { wallet, intent } = request
    const lst = lstForStake(intent.amount, pool.state.totalLamports, pool.lstSupply)
    if (lst === 0n) {
      return yield* new AdapterInputError({ protocol: request.protocol, operation: "stake", field: "amount", message: `amount ${intent.amount} lamports buys 0 LST at the pool's rate` })
    }
    const stakerLst = getAssociatedTokenAddressSync(pool.state.lstMint, wallet)
    const [existing] = yield* facts.accounts([stakerLst.toBase58()])
    const rent = existing === null || existing === undefined ? yield* facts.rentExemptMinimum(TOKEN_ACCOUNT_SIZE) : 0n
    const keys = { programId: pool.programId, staker: wallet, lstMint: pool.state.lstMint, stakerLst }
    return builtTransaction(
      [createAssociatedTokenAccountIdempotentInstruction(wallet, stakerLst, wallet, pool.state.lstMint), stakeInstruction(keys, intent.amount, withSlippage(lst))],
      {
        destination: pool.address.toBase58(),
        outputMint: pool.state.lstMint.toBase58(),
        minimumOut: withSlippage(lst),
        quotedAt: new Date().toISOString(),
        // SOL leaving the wallet besides fees: the stake and the new LST account's rent
        amountLamports: intent.amount + rent
      }
    )
  })

export const buildUnstake = (request: AdapterRequest<"unstake">) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const program = yield* LiquidStakingProgram
    const pool = yield* readStakePool(facts.accounts, program, "unstake")
    const { wallet, intent } = request
    const stakerLst = getAssociatedTokenAddressSync(pool.state.lstMint, wallet)
    const [account] = yield* facts.accounts([stakerLst.toBase58()])
    const balance = account !== null && account !== undefined && account.data.length >= 72 ? account.data.readBigUInt64LE(64) : 0n
    if (balance < intent.amount) {
      return yield* new AdapterInputError({ protocol: request.protocol, operation: "unstake", field: "amount", message: `insufficient LST: have ${balance}, need ${intent.amount}` })
    }
    const { net } = lamportsForUnstake(intent.amount, pool.state.totalLamports, pool.lstSupply, pool.state.feeBps)
    if (net === 0n) {
      return yield* new AdapterInputError({ protocol: request.protocol, operation: "unstake", field: "amount", message: `amount ${intent.amount} LST returns 0 lamports` })
    }
    const keys = { programId: pool.programId, staker: wallet, lstMint: pool.state.lstMint, stakerLst }
    return builtTransaction([unstakeInstruction(keys, intent.amount, withSlippage(net))], {
      tokenMint: pool.state.lstMint.toBase58(),
      tokenAmount: intent.amount,
      minimumOut: withSlippage(net),
      quotedAt: new Date().toISOString(),
      expectedInflowLamports: net
    })
  })

export const stakingBuilders: Builders = { stake: buildStake, unstake: buildUnstake }
