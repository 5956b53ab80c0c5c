/**
 * Where the liquid-staking program lives for this service: LIQUID_STAKING_PROGRAM_ID, or the local ledger's
 * default id when the service runs the local ledger itself (the escrow and AMM rule). On an external cluster
 * without the variable the protocol is not configured and stakes are refused at build.
 */
import { PublicKey } from "@solana/web3.js"
import { Effect, Option } from "effect"
import { AppConfig } from "../../config.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "./stakingIds.js"

export class LiquidStakingProgram extends Effect.Service<LiquidStakingProgram>()("LiquidStakingProgram", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const programId = new PublicKey(Option.getOrElse(config.liquidStakingProgramId, () => LOCAL_LIQUID_STAKING_PROGRAM_ID))
    const configured = Option.isSome(config.liquidStakingProgramId) || Option.isNone(config.chain.rpcUrl)
    return { programId, configured }
  })
}) {}
