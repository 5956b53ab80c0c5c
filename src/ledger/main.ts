// Child entry of the local ledger (`npm run ledger`, or spawned by the service when CHAIN_RPC_URL is unset).
// Its settings (ledgerConfig.ts): LEDGER_PORT, DATA_DIR, the program ids, LEDGER_SEED_POOLS, LEDGER_SLOT_MS,
// LEDGER_PRICE_REFRESH_MS, LEDGER_PARENT_PID (exit when that process is gone; an IPC channel to the parent works the same way).
import { Effect, Either, Option } from "effect"
import { existsSync } from "node:fs"
import { projectPath } from "../entryPoints.js"
import { formatStartupLines, jsonProcessWarnings, logFormatOf } from "../observability/startupLines.js"
import { ledgerConfig } from "./ledgerConfig.js"
import { startLedgerServer } from "./server.js"

const PARENT_POLL_MS = 1000

// Read before the settings are, as the service's main.ts does: the line saying they are wrong follows it too.
const logFormat = logFormatOf(process.env.LOG_FORMAT)

/** One line on stdout (which `npm start` shares): JSON under LOG_FORMAT=json, as the service's own lines. */
function log(message: string, level: "INFO" | "WARN" | "ERROR" = "INFO"): void {
  const line = formatStartupLines(logFormat, [{ level, text: `[ledger] ${message}`, message, annotations: { component: "ledger" } }])
  process.stdout.write(`${line}\n`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

async function main(): Promise<void> {
  jsonProcessWarnings(logFormat, { component: "ledger" })
  // Output gone (the parent's pipe closed with it): keep serving without it. Unhandled, each failed write
  // became an uncaught exception whose log line failed again, a loop that starved the event loop, so the
  // orphan spun a core and never saw its parent go.
  process.stdout.on("error", () => undefined)
  const settings = Either.getOrThrowWith(Effect.runSync(Effect.either(ledgerConfig)), (error) => new Error(String(error)))
  const { port, dataDir, escrowProgramId } = settings
  const slotMs = Option.getOrUndefined(settings.slotMs)
  const priceRefreshMs = Option.getOrUndefined(settings.priceRefreshMs)
  const escrowPath = projectPath("programs", "dist", "escrow.so")
  const programs: Array<{ programId: string; path: string }> = []
  if (existsSync(escrowPath)) programs.push({ programId: escrowProgramId, path: escrowPath })
  else log(`escrow program not found at ${escrowPath}; starting without it`)
  // One AMM program, deployed twice (two fee tiers seeded); AMM_*_PROGRAM_ID move them, LEDGER_SEED_POOLS=false skips seeding.
  const ammPath = projectPath("programs", "dist", "amm.so")
  const ammIds = settings.ammProgramIds
  if (existsSync(ammPath)) for (const programId of Object.values(ammIds)) programs.push({ programId, path: ammPath })
  else log(`amm program not found at ${ammPath}; starting without it`)
  const seedPools = existsSync(ammPath) && settings.seedPools ? ammIds : undefined
  // The liquid-staking program and its one pool (seeded with a stake and rewards, so the rate is above 1).
  const stakingPath = projectPath("programs", "dist", "liquid-staking.so")
  const stakingId = settings.liquidStakingProgramId
  if (existsSync(stakingPath)) programs.push({ programId: stakingId, path: stakingPath })
  else log(`liquid-staking program not found at ${stakingPath}; starting without it`)
  const seedStakePool = existsSync(stakingPath) && settings.seedPools ? stakingId : undefined
  // The lending market: SOL and USDC reserves with liquidity; it needs the test mints and price feeds the AMM seed makes.
  const lendingPath = projectPath("programs", "dist", "lending-market.so")
  const lendingId = settings.lendingMarketProgramId
  if (existsSync(lendingPath)) programs.push({ programId: lendingId, path: lendingPath })
  else log(`lending-market program not found at ${lendingPath}; starting without it`)
  const seedLendingMarket = existsSync(lendingPath) && seedPools !== undefined ? lendingId : undefined

  const server = await startLedgerServer({
    port, dataDir, programs, slotMs, ...(priceRefreshMs === undefined ? {} : { priceRefreshMs }), ...(seedPools === undefined ? {} : { seedPools }), ...(seedStakePool === undefined ? {} : { seedStakePool }),
    ...(seedLendingMarket === undefined ? {} : { seedLendingMarket })
  })

  let stopping = false
  const shutdown = (why: string): void => {
    if (stopping) return
    stopping = true
    log(`${why}: saving state and exiting`)
    server.close().then(
      () => process.exit(0),
      () => process.exit(1)
    )
  }
  process.on("SIGTERM", () => shutdown("SIGTERM"))
  process.on("SIGINT", () => shutdown("SIGINT"))
  // A parent that dies without stopping us (kill -9) must not leave an orphan holding the port.
  if (process.send !== undefined) process.on("disconnect", () => shutdown("parent disconnected"))
  const parentPid = Option.getOrElse(settings.parentPid, () => 0)
  if (parentPid > 0) {
    setInterval(() => {
      if (!isAlive(parentPid)) shutdown("parent process gone")
    }, PARENT_POLL_MS).unref()
  }
  // Requests are validated before they reach litesvm; should anything still throw, keep serving.
  process.on("uncaughtException", (error) => log(`uncaught exception: ${error.stack ?? error.message}`, "ERROR"))

  const loaded = programs.map((p) => p.programId).join(",") || "none"
  process.send?.({ type: "ready", rpcUrl: server.rpcUrl, wsUrl: server.wsUrl })
  log(`ready rpc=${server.rpcUrl} ws=${server.wsUrl} dataDir=${dataDir} programs=${loaded} pid=${process.pid}`)
}

main().catch((error: unknown) => {
  const reason = error instanceof Error ? error.message : String(error)
  log(`failed to start: ${reason}`, "ERROR")
  // The parent's error then says why (a port taken, say), not only "exited with code 1".
  if (process.send === undefined) process.exit(1)
  else process.send({ type: "failed", reason }, undefined, undefined, () => process.exit(1))
})
