/**
 * Where the lending-market program lives for this service: LENDING_MARKET_PROGRAM_ID, or the local ledger's
 * default id when the service runs the local ledger itself (the escrow, AMM and liquid-staking rule). On an
 * external cluster without the variable the protocol is not configured and lending is refused at build.
 */
import { PublicKey } from "@solana/web3.js"
import { Effect, Option } from "effect"
import { AppConfig } from "../../config.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "./lendingIds.js"

export class LendingMarketProgram extends Effect.Service<LendingMarketProgram>()("LendingMarketProgram", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const programId = new PublicKey(Option.getOrElse(config.lendingMarketProgramId, () => LOCAL_LENDING_MARKET_PROGRAM_ID))
    const configured = Option.isSome(config.lendingMarketProgramId) || Option.isNone(config.chain.rpcUrl)
    return { programId, configured }
  })
}) {}
