/** Where our own programs live for this service, as the adapters' program ids read them (protocolAdapter.ts). */
import { Effect } from "effect"
import { AmmPrograms } from "./amm/programs.js"
import { EscrowProgram } from "./escrow/program.js"
import { LendingMarketProgram } from "./lending/program.js"
import type { ProgramIds } from "./protocolAdapter.js"
import { LiquidStakingProgram } from "./staking/program.js"

export const configuredProgramIds: Effect.Effect<ProgramIds, never, EscrowProgram | AmmPrograms | LiquidStakingProgram | LendingMarketProgram> =
  Effect.gen(function* () {
    const amm = (yield* AmmPrograms).programs
    return {
      escrow: (yield* EscrowProgram).programId.toBase58(),
      ammOne: amm["amm-one"].programId.toBase58(),
      ammTwo: amm["amm-two"].programId.toBase58(),
      liquidStaking: (yield* LiquidStakingProgram).programId.toBase58(),
      lendingMarket: (yield* LendingMarketProgram).programId.toBase58()
    }
  })
