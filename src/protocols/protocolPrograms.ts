/**
 * Where the protocols' programs live for this service, in one service the pipeline reads (issue 33): the
 * configured ids of our own programs, the services an adapter's builder reads besides the chain, each own
 * program as its adapter describes it (preview label, instruction names), the oracle price-age bound, and the
 * adapters' reading of a failed transaction's logs. Only this file and the adapters name a protocol's program
 * service; a new protocol adds its service here and its adapter to the registry.
 */
import { Context, Effect } from "effect"
import { AmmPrograms } from "./amm/programs.js"
import { EscrowProgram } from "./escrow/program.js"
import { LendingMarketProgram } from "./lending/program.js"
import { OracleFreshness } from "./oracle/oracleFreshness.js"
import type { OwnProgram, ProgramIds } from "./protocolAdapter.js"
import { describeProtocolFailure, PROTOCOL_ADAPTERS } from "./registry.js"
import { LiquidStakingProgram } from "./staking/program.js"

/** The services a builder reads besides ChainFacts (adapterRequest.ts), provided together. */
export type ProgramServices = EscrowProgram | AmmPrograms | LiquidStakingProgram | LendingMarketProgram | OracleFreshness

/** One of our programs at the id this service is configured with. */
export interface DeployedProgram extends OwnProgram {
  readonly programId: string
}

/** Each own program once, as the first adapter that runs on it describes it (the aggregator shares both AMMs). */
const OWN_PROGRAMS: ReadonlyArray<OwnProgram> = PROTOCOL_ADAPTERS.flatMap((adapter) => adapter.ownPrograms ?? []).filter(
  (own, index, all) => all.findIndex((other) => other.program === own.program) === index
)

export class ProtocolPrograms extends Effect.Service<ProtocolPrograms>()("ProtocolPrograms", {
  dependencies: [EscrowProgram.Default, AmmPrograms.Default, LiquidStakingProgram.Default, LendingMarketProgram.Default, OracleFreshness.Default],
  effect: Effect.gen(function* () {
    const escrow = yield* EscrowProgram
    const amm = yield* AmmPrograms
    const liquidStaking = yield* LiquidStakingProgram
    const lendingMarket = yield* LendingMarketProgram
    const oracleFreshness = yield* OracleFreshness
    const ids: ProgramIds = {
      escrow: escrow.programId.toBase58(),
      ammOne: amm.programs["amm-one"].programId.toBase58(),
      ammTwo: amm.programs["amm-two"].programId.toBase58(),
      liquidStaking: liquidStaking.programId.toBase58(),
      lendingMarket: lendingMarket.programId.toBase58()
    }
    // Made once: each provided service is a copy of the fiber's whole context (and a comparison by hash), so a
    // build provides them with its ChainFacts in one step.
    const services: Context.Context<ProgramServices> = Context.make(EscrowProgram, escrow).pipe(
      Context.add(AmmPrograms, amm),
      Context.add(LiquidStakingProgram, liquidStaking),
      Context.add(LendingMarketProgram, lendingMarket),
      Context.add(OracleFreshness, oracleFreshness)
    )
    const deployed: ReadonlyArray<DeployedProgram> = OWN_PROGRAMS.map((own) => ({ ...own, programId: ids[own.program] }))
    return {
      ids,
      services,
      deployed,
      oracleMaxAgeSeconds: oracleFreshness.maxAgeSeconds,
      /** a failed transaction's refusal, named by the adapter whose program refused; undefined when none did */
      describeFailure: (logs: ReadonlyArray<string>) => describeProtocolFailure(logs, ids)
    }
  })
}) {}
