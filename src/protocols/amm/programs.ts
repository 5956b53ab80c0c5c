/**
 * Where the two AMM programs live for this service: AMM_ONE_PROGRAM_ID / AMM_TWO_PROGRAM_ID, or the local
 * ledger's default ids when the service runs the local ledger itself (the escrow rule). On an external
 * cluster without the variable a pool protocol is not configured and its swaps are refused at build.
 */
import { PublicKey } from "@solana/web3.js"
import { Effect, Option } from "effect"
import { AppConfig } from "../../config.js"
import { AMM_PROTOCOLS, type AmmProtocol, LOCAL_AMM_PROGRAM_IDS } from "./ammIds.js"

export interface AmmProgramInfo {
  readonly protocol: AmmProtocol
  readonly programId: PublicKey
  readonly configured: boolean
}

export class AmmPrograms extends Effect.Service<AmmPrograms>()("AmmPrograms", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const runsLocalLedger = Option.isNone(config.chain.rpcUrl)
    const info = (protocol: AmmProtocol, setting: Option.Option<string>): AmmProgramInfo => ({
      protocol,
      programId: new PublicKey(Option.getOrElse(setting, () => LOCAL_AMM_PROGRAM_IDS[protocol])),
      configured: Option.isSome(setting) || runsLocalLedger
    })
    const programs: Record<AmmProtocol, AmmProgramInfo> = {
      "amm-one": info("amm-one", config.ammOneProgramId),
      "amm-two": info("amm-two", config.ammTwoProgramId)
    }
    return { programs, all: AMM_PROTOCOLS.map((p) => programs[p]) }
  })
}) {}
