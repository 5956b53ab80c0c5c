/**
 * The live lending market of a deployment, read through the pipeline's chain facts (or any account reader):
 * a mint's reserve and an owner's obligation with its positions' reserves. Fails closed (an adapter input
 * error naming why) when the program is not configured or deployed, or the mint has no reserve.
 */
import type { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import type { ChainError } from "../../chain/chainClient.js"
import type { AccountFacts } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import { decodeObligation, decodeReserve, obligationAddress, type ObligationState, reserveAddress, type ReserveState } from "./layout.js"

export type ReadAccounts = (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<AccountFacts | null>, ChainError>

export interface LendingProgramRef {
  readonly programId: PublicKey
  readonly configured: boolean
}

export interface ReserveView {
  readonly address: PublicKey
  readonly state: ReserveState
}

const refuse = (operation: string, message: string, field?: string) =>
  new AdapterInputError({ protocol: "lending-market", operation, message, ...(field === undefined ? {} : { field }) })

/** The program must be configured and deployed, and `mint` must have a reserve. */
export const readReserve = (accounts: ReadAccounts, program: LendingProgramRef, mint: PublicKey, operation: string) =>
  Effect.gen(function* () {
    if (!program.configured) return yield* refuse(operation, "LENDING_MARKET_PROGRAM_ID is not set: lending-market is not deployed for this cluster")
    const address = reserveAddress(program.programId, mint)
    const [programAccount, reserveAccount] = yield* accounts([program.programId.toBase58(), address.toBase58()])
    if (programAccount === null || programAccount === undefined || !programAccount.executable) {
      return yield* refuse(operation, `lending-market program ${program.programId.toBase58()} is not deployed on this ledger`)
    }
    const state = reserveAccount === null || reserveAccount === undefined || reserveAccount.owner !== program.programId.toBase58() ? null : decodeReserve(reserveAccount.data)
    if (state === null) return yield* refuse(operation, `intent.mint: no lending-market reserve for mint ${mint.toBase58()}`, "mint")
    return { address, state } satisfies ReserveView
  })

/** An owner's obligation and the reserves of its positions (in slot order); null when it has none. */
export const readObligation = (accounts: ReadAccounts, programId: PublicKey, owner: PublicKey) =>
  Effect.gen(function* () {
    const [account] = yield* accounts([obligationAddress(programId, owner).toBase58()])
    const state: ObligationState | null = account === null || account === undefined || account.owner !== programId.toBase58() ? null : decodeObligation(account.data)
    if (state === null) return null
    const reserveAccounts = state.slots.length === 0 ? [] : yield* accounts(state.slots.map((slot) => slot.reserve.toBase58()))
    const reserves = reserveAccounts.map((reserve) => (reserve === null || reserve === undefined ? null : decodeReserve(reserve.data)))
    return { state, reserves }
  })
