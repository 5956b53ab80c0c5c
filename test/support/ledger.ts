/** A real local ledger (litesvm behind JSON-RPC) for one test file, on a free port pair. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { LOCAL_ESCROW_PROGRAM_ID } from "../../src/config.js"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../../src/protocols/lending/lendingIds.js"
import { startLedgerServer, type LedgerServer } from "../../src/ledger/server.js"

/** Our built escrow program (programs/dist), loaded at LOCAL_ESCROW_PROGRAM_ID by `{ escrow: true }`. */
export const ESCROW_SO_PATH = fileURLToPath(new URL("../../programs/dist/escrow.so", import.meta.url))

export interface TestLedgerOptions {
  /** Load the escrow program at LOCAL_ESCROW_PROGRAM_ID (default: no programs beyond the built-ins). */
  readonly escrow?: boolean
  /** Load the AMM program at both local ids and seed the test mints and pools (as `npm start` does). */
  readonly amm?: boolean
  /** Load the liquid-staking program at its local id and seed its pool (as `npm start` does). */
  readonly staking?: boolean
  /** Load the lending-market program and seed its SOL and USDC reserves (as `npm start` does); implies `amm` (mints, feeds). */
  readonly lending?: boolean
  /** How often the ledger posts its seeded oracle feeds again (default: the ledger's 10 s). */
  readonly priceRefreshMs?: number
  /** Slot time (default the ledger's 400 ms): shorter makes a blockhash expire sooner (150 slots). */
  readonly slotMs?: number
}

export const AMM_SO_PATH = fileURLToPath(new URL("../../programs/dist/amm.so", import.meta.url))
export const LIQUID_STAKING_SO_PATH = fileURLToPath(new URL("../../programs/dist/liquid-staking.so", import.meta.url))
export const LENDING_MARKET_SO_PATH = fileURLToPath(new URL("../../programs/dist/lending-market.so", import.meta.url))

/** Ports 20000-39999 in steps of 2 (RPC + PubSub); a collision retries with another pair. */
export const startTestLedger = async (options: TestLedgerOptions = {}): Promise<LedgerServer & { dataDir: string }> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-ledger-"))
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + 2 * Math.floor(Math.random() * 10_000)
    try {
      const amm = options.amm === true || options.lending === true
      const programs = [
        ...(options.escrow === true ? [{ programId: LOCAL_ESCROW_PROGRAM_ID, path: ESCROW_SO_PATH }] : []),
        ...(amm ? Object.values(LOCAL_AMM_PROGRAM_IDS).map((programId) => ({ programId, path: AMM_SO_PATH })) : []),
        ...(options.staking === true ? [{ programId: LOCAL_LIQUID_STAKING_PROGRAM_ID, path: LIQUID_STAKING_SO_PATH }] : []),
        ...(options.lending === true ? [{ programId: LOCAL_LENDING_MARKET_PROGRAM_ID, path: LENDING_MARKET_SO_PATH }] : [])
      ]
      const seedPools = amm ? LOCAL_AMM_PROGRAM_IDS : undefined
      const server = await startLedgerServer({
        port, dataDir, ...(programs.length === 0 ? {} : { programs }), ...(seedPools === undefined ? {} : { seedPools }),
        ...(options.staking === true ? { seedStakePool: LOCAL_LIQUID_STAKING_PROGRAM_ID } : {}),
        ...(options.lending === true ? { seedLendingMarket: LOCAL_LENDING_MARKET_PROGRAM_ID } : {}),
        ...(options.priceRefreshMs === undefined ? {} : { priceRefreshMs: options.priceRefreshMs }),
        ...(options.slotMs === undefined ? {} : { slotMs: options.slotMs })
      })
      return {
        ...server,
        dataDir,
        close: async () => {
          await server.close()
          fs.rmSync(dataDir, { recursive: true, force: true })
        }
      }
    } catch (error) {
      if (attempt >= 5) throw error
    }
  }
}
