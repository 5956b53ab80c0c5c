/**
 * Protocol health (spec: Protocols endpoints, Versioning 5), read from the ledger through ChainClient,
 * never assumed: a protocol is ok only when its adapter exists and every program it uses is an
 * executable account on chain. Escrow also reports `configured` (ESCROW_PROGRAM_ID set, or the local
 * ledger's default id when the service runs the local ledger) and `deployed`.
 */
import { Duration, Effect, Option } from "effect"
import type { ProtocolHealth } from "../../schemas/protocol.js"
import { ChainClient } from "../chain/chainClient.js"
import { AppConfig, LOCAL_ESCROW_PROGRAM_ID } from "../config.js"
import { AMM_PROGRAM_ID_SETTINGS, type AmmProtocol, LOCAL_AMM_PROGRAM_IDS } from "./amm/ammIds.js"
import { sourcesOf } from "./amm/swapRoute.js"
import { LIQUID_STAKING_PROGRAM_ID_SETTING, LOCAL_LIQUID_STAKING_PROGRAM_ID } from "./staking/stakingIds.js"
import { LENDING_MARKET_PROGRAM_ID_SETTING, LOCAL_LENDING_MARKET_PROGRAM_ID } from "./lending/lendingIds.js"
import { findAdapter, PROTOCOL_IDS, type ProtocolAdapterInfo, protocolRegistry } from "./registry.js"

const CHECK_TIMEOUT = Duration.seconds(5)

interface AccountInfo {
  readonly value: { readonly executable: boolean; readonly owner: string } | null
}

type ProgramState = { readonly state: "executable" } | { readonly state: "missing" | "not-executable" } | { readonly state: "unreachable"; readonly error: string }

export class ProtocolHealthCheck extends Effect.Service<ProtocolHealthCheck>()("ProtocolHealthCheck", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const chain = yield* ChainClient
    // Without CHAIN_RPC_URL the service starts the local ledger, which loads the escrow at its default id.
    const runsLocalLedger = Option.isNone(config.chain.rpcUrl)
    const escrowConfigured = Option.isSome(config.escrowProgramId) || runsLocalLedger
    const escrowProgramId = Option.getOrElse(config.escrowProgramId, () => LOCAL_ESCROW_PROGRAM_ID)
    // The AMM deployments follow the escrow rule: their variable, or the local ledger's ids when it runs here.
    const ammSettings = { "amm-one": config.ammOneProgramId, "amm-two": config.ammTwoProgramId } as const
    const ammConfigured = (amm: AmmProtocol) => Option.isSome(ammSettings[amm]) || runsLocalLedger
    const ammProgramId = (amm: AmmProtocol) => Option.getOrElse(ammSettings[amm], () => LOCAL_AMM_PROGRAM_IDS[amm])
    const stakingConfigured = Option.isSome(config.liquidStakingProgramId) || runsLocalLedger
    const stakingProgramId = Option.getOrElse(config.liquidStakingProgramId, () => LOCAL_LIQUID_STAKING_PROGRAM_ID)
    const lendingConfigured = Option.isSome(config.lendingMarketProgramId) || runsLocalLedger
    const lendingProgramId = Option.getOrElse(config.lendingMarketProgramId, () => LOCAL_LENDING_MARKET_PROGRAM_ID)
    const registry = protocolRegistry({
      escrowProgramId, ammOneProgramId: ammProgramId("amm-one"), ammTwoProgramId: ammProgramId("amm-two"), liquidStakingProgramId: stakingProgramId,
      lendingMarketProgramId: lendingProgramId
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

    /** One program of ours behind one setting (escrow, liquid-staking): configured, deployed, its id. */
    const ownProgramHealth = (adapter: ProtocolAdapterInfo, programId: string, configured: boolean, setting: string) =>
      Effect.gen(function* () {
        const state = yield* programState(programId)
        const deployed = state.state === "executable"
        const problems = [
          ...(configured ? [] : [`${setting} is not set`]),
          ...(deployed ? [] : [describe(programId, state)])
        ]
        return {
          protocol: adapter.protocol,
          ok: configured && deployed,
          configured,
          deployed,
          programId,
          ...(problems.length === 0 ? {} : { message: problems.join("; ") })
        } satisfies ProtocolHealth
      })
    const escrowHealth = (adapter: ProtocolAdapterInfo) => ownProgramHealth(adapter, escrowProgramId, escrowConfigured, "ESCROW_PROGRAM_ID")

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

    /** amm-one / amm-two, and the aggregator over both: ok only when every deployment is configured and executable. */
    const ammHealth = (adapter: ProtocolAdapterInfo) =>
      Effect.gen(function* () {
        const sources = sourcesOf(adapter.protocol)
        const states = yield* Effect.forEach(sources, (amm) => programState(ammProgramId(amm)), { concurrency: "unbounded" })
        const problems = sources.flatMap((amm, i) => [
          ...(ammConfigured(amm) ? [] : [`${AMM_PROGRAM_ID_SETTINGS[amm]} is not set`]),
          ...(states[i]!.state === "executable" ? [] : [describe(ammProgramId(amm), states[i]!)])
        ])
        const configured = sources.every(ammConfigured)
        const deployed = states.every((state) => state.state === "executable")
        return {
          protocol: adapter.protocol,
          ok: configured && deployed,
          configured,
          deployed,
          ...(sources.length === 1 ? { programId: ammProgramId(sources[0]!) } : {}),
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
      if (sourcesOf(adapter.protocol).length > 0) return ammHealth(adapter)
      if (adapter.protocol === "liquid-staking") return ownProgramHealth(adapter, stakingProgramId, stakingConfigured, LIQUID_STAKING_PROGRAM_ID_SETTING)
      if (adapter.protocol === "lending-market") return ownProgramHealth(adapter, lendingProgramId, lendingConfigured, LENDING_MARKET_PROGRAM_ID_SETTING)
      return adapter.protocol === "escrow" ? escrowHealth(adapter) : programsHealth(adapter)
    }

    const checkAll = Effect.forEach(PROTOCOL_IDS, (id) => check(id), { concurrency: "unbounded" }).pipe(
      Effect.map((results) => results.filter((r): r is ProtocolHealth => r !== undefined))
    )

    return { registry, check, checkAll }
  })
}) {}
