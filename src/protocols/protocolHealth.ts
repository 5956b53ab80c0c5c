/**
 * Protocol health (spec: Protocols endpoints, Versioning 5), read from the ledger through ChainClient,
 * never assumed: a protocol is ok only when its adapter exists and every program it uses is an
 * executable account on chain. A protocol on our own programs (its adapter's `ownPrograms`) also reports
 * `configured` (each program's setting set, or the local ledger's default id when the service runs the
 * local ledger) and `deployed`.
 */
import { Duration, Effect, Option } from "effect"
import type { ProtocolHealth } from "../../schemas/protocol.js"
import { ChainClient } from "../chain/chainClient.js"
import { AppConfig, LOCAL_ESCROW_PROGRAM_ID } from "../config.js"
import { LOCAL_AMM_PROGRAM_IDS } from "./amm/ammIds.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "./lending/lendingIds.js"
import type { OwnProgram, ProgramIds } from "./protocolAdapter.js"
import { findAdapter, PROTOCOL_ADAPTERS, PROTOCOL_IDS, type ProtocolAdapterInfo, protocolRegistry } from "./registry.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "./staking/stakingIds.js"

const CHECK_TIMEOUT = Duration.seconds(5)

interface AccountInfo {
  readonly value: { readonly executable: boolean; readonly owner: string } | null
}

type ProgramState = { readonly state: "executable" } | { readonly state: "missing" | "not-executable" } | { readonly state: "unreachable"; readonly error: string }

export class ProtocolHealthCheck extends Effect.Service<ProtocolHealthCheck>()("ProtocolHealthCheck", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const chain = yield* ChainClient
    // Without CHAIN_RPC_URL the service starts the local ledger, which loads our programs at their default ids:
    // each is its variable, or the local ledger's id when it runs here.
    const runsLocalLedger = Option.isNone(config.chain.rpcUrl)
    const settings: { readonly [K in keyof ProgramIds]: { readonly value: Option.Option<string>; readonly local: string } } = {
      escrow: { value: config.escrowProgramId, local: LOCAL_ESCROW_PROGRAM_ID },
      ammOne: { value: config.ammOneProgramId, local: LOCAL_AMM_PROGRAM_IDS["amm-one"] },
      ammTwo: { value: config.ammTwoProgramId, local: LOCAL_AMM_PROGRAM_IDS["amm-two"] },
      liquidStaking: { value: config.liquidStakingProgramId, local: LOCAL_LIQUID_STAKING_PROGRAM_ID },
      lendingMarket: { value: config.lendingMarketProgramId, local: LOCAL_LENDING_MARKET_PROGRAM_ID }
    }
    const configured = (own: OwnProgram) => Option.isSome(settings[own.program].value) || runsLocalLedger
    const idOf = (program: keyof ProgramIds) => Option.getOrElse(settings[program].value, () => settings[program].local)
    const registry = protocolRegistry({
      escrowProgramId: idOf("escrow"),
      ammOneProgramId: idOf("ammOne"),
      ammTwoProgramId: idOf("ammTwo"),
      liquidStakingProgramId: idOf("liquidStaking"),
      lendingMarketProgramId: idOf("lendingMarket")
    })

    const programState = (programId: string): Effect.Effect<ProgramState> =>
      chain.rpc<AccountInfo>("getAccountInfo", [programId, { encoding: "base64", commitment: "confirmed", dataSlice: { offset: 0, length: 0 } }]).pipe(
        Effect.timeoutFail({ duration: CHECK_TIMEOUT, onTimeout: () => ({ message: `no answer within ${Duration.format(CHECK_TIMEOUT)}` }) }),
        Effect.map((info): ProgramState =>
          info.value === null ? { state: "missing" } : info.value.executable ? { state: "executable" } : { state: "not-executable" }
        ),
        Effect.catchAll((error) => Effect.succeed<ProgramState>({ state: "unreachable", error: error.message }))
      )

    const describe = (programId: string, state: ProgramState) =>
      state.state === "unreachable"
        ? `ledger RPC unavailable: ${state.error}`
        : state.state === "missing"
          ? `program ${programId} is not deployed on this ledger`
          : `account ${programId} is not an executable program`

    const programsHealth = (adapter: ProtocolAdapterInfo) =>
      Effect.gen(function* () {
        const states = yield* Effect.forEach(adapter.programIds, (id) => Effect.map(programState(id), (state) => [id, state] as const), {
          concurrency: "unbounded"
        })
        const problems = states.filter(([, s]) => s.state !== "executable").map(([id, s]) => describe(id, s))
        return {
          protocol: adapter.protocol,
          ok: problems.length === 0,
          ...(problems.length === 0 ? {} : { message: problems.join("; ") })
        } satisfies ProtocolHealth
      })

    /** A protocol on our own programs (escrow, each AMM and the aggregator over both, ...): ok only when every one is configured and executable. */
    const ownProgramsHealth = (adapter: ProtocolAdapterInfo, own: ReadonlyArray<OwnProgram>) =>
      Effect.gen(function* () {
        const states = yield* Effect.forEach(own, (program) => programState(idOf(program.program)), { concurrency: "unbounded" })
        const problems = own.flatMap((program, i) => [
          ...(configured(program) ? [] : [`${program.setting} is not set`]),
          ...(states[i]!.state === "executable" ? [] : [describe(idOf(program.program), states[i]!)])
        ])
        const allConfigured = own.every(configured)
        const deployed = states.every((state) => state.state === "executable")
        return {
          protocol: adapter.protocol,
          ok: allConfigured && deployed,
          configured: allConfigured,
          deployed,
          ...(own.length === 1 ? { programId: idOf(own[0]!.program) } : {}),
          ...(problems.length === 0 ? {} : { message: problems.join("; ") })
        } satisfies ProtocolHealth
      })

    /** Health of one protocol; undefined for an unknown protocol id. */
    const check = (protocol: string): Effect.Effect<ProtocolHealth | undefined> => {
      const adapter = findAdapter(registry, protocol)
      if (adapter === undefined) return Effect.succeed(undefined)
      if (!adapter.implemented) {
        // No fake ok: without a transaction builder every transaction of this protocol fails at build.
        return Effect.succeed({ protocol: adapter.protocol, ok: false, message: `no adapter for ${adapter.protocol} in this build: transactions fail at build` })
      }
      const own = PROTOCOL_ADAPTERS.find((a) => a.protocol === adapter.protocol)?.ownPrograms ?? []
      return own.length > 0 ? ownProgramsHealth(adapter, own) : programsHealth(adapter)
    }

    const checkAll = Effect.forEach(PROTOCOL_IDS, (id) => check(id), { concurrency: "unbounded" }).pipe(
      Effect.map((results) => results.filter((r): r is ProtocolHealth => r !== undefined))
    )

    return { registry, check, checkAll }
  })
}) {}
