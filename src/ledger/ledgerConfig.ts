/**
 * Settings of the local ledger's process (`npm run ledger`, or spawned by the service with the service's
 * environment), read once through Effect's Config as the service's (config.ts): a bad value names its variable.
 */
import { Config } from "effect"
import { LOCAL_AMM_PROGRAM_IDS } from "../protocols/amm/ammIds.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../protocols/staking/stakingIds.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../protocols/lending/lendingIds.js"
import { DEFAULT_DATA_DIR } from "../dataDir.js"

const DEFAULT_ESCROW_PROGRAM_ID = "Escrow1111111111111111111111111111111111111"

const programId = (name: string, fallback: string) => Config.string(name).pipe(Config.withDefault(fallback))

export const ledgerConfig = Config.all({
  /** JSON-RPC here, PubSub on the next port. */
  port: Config.integer("LEDGER_PORT").pipe(
    Config.validate({ message: "LEDGER_PORT must be a TCP port", validation: (p) => p > 0 && p < 65535 }),
    Config.withDefault(8899)
  ),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR)),
  escrowProgramId: programId("ESCROW_PROGRAM_ID", DEFAULT_ESCROW_PROGRAM_ID),
  ammProgramIds: Config.all({
    "amm-one": programId("AMM_ONE_PROGRAM_ID", LOCAL_AMM_PROGRAM_IDS["amm-one"]),
    "amm-two": programId("AMM_TWO_PROGRAM_ID", LOCAL_AMM_PROGRAM_IDS["amm-two"])
  }),
  liquidStakingProgramId: programId("LIQUID_STAKING_PROGRAM_ID", LOCAL_LIQUID_STAKING_PROGRAM_ID),
  lendingMarketProgramId: programId("LENDING_MARKET_PROGRAM_ID", LOCAL_LENDING_MARKET_PROGRAM_ID),
  /** false: no test mints, pools, stake pool or lending reserves are seeded. */
  seedPools: Config.boolean("LEDGER_SEED_POOLS").pipe(Config.withDefault(true)),
  /** Unset: the server's default slot time. */
  slotMs: Config.option(Config.number("LEDGER_SLOT_MS")),
  /** How often the seeded oracle feeds are posted again (0 never); unset: the server's default. */
  priceRefreshMs: Config.option(
    Config.integer("LEDGER_PRICE_REFRESH_MS").pipe(
      Config.validate({ message: "LEDGER_PRICE_REFRESH_MS must be a non-negative integer (milliseconds)", validation: (ms) => ms >= 0 })
    )
  ),
  /** Exit when that process is gone (the service sets its own pid). */
  parentPid: Config.option(Config.integer("LEDGER_PARENT_PID"))
})
