/**
 * `npm run bench:swap`: swaps and quotes through the whole service over HTTP, on the seeded local ledger
 * (a ledger child as `npm start` runs it: amm-one and amm-two with their pools) and PostgreSQL.
 *
 * BENCH_CLIENTS (32) clients, each with its own funded wallet:
 *   - quotes: BENCH_QUOTES (2,000) POST /api/v1/defi/quote of the dex-aggregator (SOL -> USDC, every route
 *     and split over both AMMs read live from the ledger), latency per request as the client sees it;
 *   - swaps: BENCH_SWAPS (640) swap intents, SOL -> USDC alternating amm-one, amm-two and dex-aggregator,
 *     each POST /api/v1/transactions?waitMs=30000 (answered when the swap is confirmed or failed).
 *     Throughput: confirmed swaps / wall time of the swap phase.
 *
 * Environment: BENCH_CLIENTS, BENCH_QUOTES, BENCH_SWAPS, TEST_DATABASE_URL (PostgreSQL server).
 */
import type { TransactionsApi } from "../schemas/api/transactions.js"
import type { WireDataOf } from "../test/support/client.js"
import { NATIVE_MINT } from "@solana/spl-token"
import {
  call,
  createFundedWallet,
  createPostgresDatabase,
  killAllChildren,
  mapConcurrent,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../test/support/processes.js"
import { LOCAL_AMM_PROGRAM_IDS } from "../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../src/protocols/amm/localPools.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import { ms, percentile, table } from "./support/stats.js"

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

const settings = { clients: intEnv("BENCH_CLIENTS", 32), quotes: intEnv("BENCH_QUOTES", 2_000), swaps: intEnv("BENCH_SWAPS", 640) }
const PROTOCOLS = ["amm-one", "amm-two", "dex-aggregator"] as const
const SOL = NATIVE_MINT.toBase58()
const USDC = mintBySymbol("USDC").address.toBase58()

const main = async () => {
  const ledger = await startLedgerProcess()
  const database = await createPostgresDatabase(benchPostgresUrl())
  const service = await startServiceProcess({
    databaseUrl: database.url,
    dataDir: tempDir("custody-bench-swap-"),
    rpcUrl: ledger.rpcUrl,
    env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"] }
  })
  try {
    const wallets = await mapConcurrent(Array.from({ length: settings.clients }), 8, () => createFundedWallet(service.baseUrl, 2_000_000_000))

    // warm-up: one of each, so first-call costs do not land in the figures
    for (const protocol of PROTOCOLS) {
      await call(service.baseUrl, "POST", "/api/v1/defi/quote", { protocol, inputMint: SOL, outputMint: USDC, amount: "1000000", wallet: wallets[0]!.publicKey })
    }

    const quoteTimes: number[] = []
    const quoteStart = performance.now()
    await mapConcurrent(Array.from({ length: settings.quotes }), settings.clients, async (_, i) => {
      const started = performance.now()
      const answer = await call(service.baseUrl, "POST", "/api/v1/defi/quote", {
        protocol: "dex-aggregator", inputMint: SOL, outputMint: USDC, amount: String(10_000_000 + i), wallet: wallets[i % wallets.length]!.publicKey
      })
      if (answer.status !== 200) throw new Error(`quote failed: ${JSON.stringify(answer.body)}`)
      quoteTimes.push(performance.now() - started)
    })
    const quoteSeconds = (performance.now() - quoteStart) / 1000

    const perClient = Math.ceil(settings.swaps / settings.clients)
    const swapTimes: number[] = []
    const outcomes = { confirmed: 0, failed: 0 }
    const swapStart = performance.now()
    await Promise.all(
      wallets.map(async (wallet, client) => {
        for (let n = 0; n < perClient; n++) {
          const protocol = PROTOCOLS[(client + n) % PROTOCOLS.length]!
          const started = performance.now()
          const answer = await call<WireDataOf<typeof TransactionsApi.create>>(service.baseUrl, "POST", "/api/v1/transactions?waitMs=30000", {
            walletId: wallet.id, type: "swap", protocol,
            intent: { inputMint: SOL, outputMint: USDC, amount: "1000000", slippageBps: 500 }
          })
          swapTimes.push(performance.now() - started)
          if (answer.body.data?.status === "confirmed") outcomes.confirmed++
          else outcomes.failed++
        }
      })
    )
    const swapSeconds = (performance.now() - swapStart) / 1000

    console.log(`bench:swap: ${settings.clients} clients, ${wallets.length} wallets, seeded local ledger, PostgreSQL\n`)
    console.log(
      table([
        ["measure", "count", "per second", "p50 ms", "p99 ms"],
        ["quote (dex-aggregator)", String(quoteTimes.length), (quoteTimes.length / quoteSeconds).toFixed(0), ms(percentile(quoteTimes, 50)), ms(percentile(quoteTimes, 99))],
        ["swap, create to confirmed", String(outcomes.confirmed), (outcomes.confirmed / swapSeconds).toFixed(1), ms(percentile(swapTimes, 50)), ms(percentile(swapTimes, 99))]
      ])
    )
    if (outcomes.failed > 0) console.log(`\n${outcomes.failed} swaps did not confirm`)
  } finally {
    await service.stop()
    await ledger.close()
    await database.drop()
    killAllChildren()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  killAllChildren()
  process.exit(1)
})
