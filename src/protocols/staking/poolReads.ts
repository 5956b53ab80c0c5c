/**
 * The live stake pool of a deployment: its state and the LST supply, read through the pipeline's chain
 * facts. Fails closed (an adapter input error naming why) when the program is not configured or deployed,
 * or the pool does not exist.
 */
import type { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import type { ChainError } from "../../chain/chainClient.js"
import type { AccountFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import { decodeStakePool, lamportsPerLst, type StakePoolState, stakePoolAddress } from "./layout.js"

export interface StakePoolView {
  readonly programId: PublicKey
  readonly address: PublicKey
  readonly state: StakePoolState
  readonly lstSupply: bigint
  /** lamports per whole LST (10^9 base units), before the unstake fee */
  readonly lamportsPerLst: bigint
}

type ReadAccounts = (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<AccountFacts | null>, ChainError>

const refuse = (operation: string, message: string) => new AdapterInputError({ protocol: "liquid-staking", operation, message })

export const readStakePool = (accounts: ReadAccounts, program: { readonly programId: PublicKey; readonly configured: boolean }, operation: string) =>
  Effect.gen(function* () {
    if (!program.configured) return yield* refuse(operation, "LIQUID_STAKING_PROGRAM_ID is not set: liquid-staking is not deployed for this cluster")
    const address = stakePoolAddress(program.programId)
    const [programAccount, poolAccount] = yield* accounts([program.programId.toBase58(), address.toBase58()])
    if (programAccount === null || programAccount === undefined || !programAccount.executable) {
      return yield* refuse(operation, `liquid-staking program ${program.programId.toBase58()} is not deployed on this ledger`)
    }
    const state = poolAccount === null || poolAccount === undefined || poolAccount.owner !== program.programId.toBase58() ? null : decodeStakePool(poolAccount.data)
    if (state === null) return yield* refuse(operation, `liquid-staking pool ${address.toBase58()} does not exist`)
    const [mint] = yield* accounts([state.lstMint.toBase58()])
    if (mint === null || mint === undefined || mint.data.length < 44) return yield* refuse(operation, `LST mint ${state.lstMint.toBase58()} is missing`)
    const lstSupply = mint.data.readBigUInt64LE(36)
    return { programId: program.programId, address, state, lstSupply, lamportsPerLst: lamportsPerLst(state.totalLamports, lstSupply) } satisfies StakePoolView
  })
