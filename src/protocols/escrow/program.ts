/**
 * Where the escrow program lives for this service: ESCROW_PROGRAM_ID, or the local ledger's default id
 * when the service runs the local ledger itself (same rule as the escrow health check).
 */
import { PublicKey } from "@solana/web3.js"
import { Effect, Option } from "effect"
import { AppConfig, LOCAL_ESCROW_PROGRAM_ID } from "../../config.js"

export interface EscrowProgramInfo {
  readonly programId: PublicKey
  /** false: ESCROW_PROGRAM_ID is unset on an external cluster; escrow builds are refused. */
  readonly configured: boolean
}

export class EscrowProgram extends Effect.Service<EscrowProgram>()("EscrowProgram", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const runsLocalLedger = Option.isNone(config.chain.rpcUrl)
    const info: EscrowProgramInfo = {
      programId: new PublicKey(Option.getOrElse(config.escrowProgramId, () => LOCAL_ESCROW_PROGRAM_ID)),
      configured: Option.isSome(config.escrowProgramId) || runsLocalLedger
    }
    return info
  })
}) {}
