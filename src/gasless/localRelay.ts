/**
 * The fee-payer relay `npm start` runs beside the local ledger (in this process, scoped: it stops with
 * the service). Its key comes from GASLESS_RELAY_PRIVATE_KEY or DATA_DIR; on the local ledger it is
 * funded by airdrop when low. Settings are read here once: GASLESS_RELAY_PORT (LEDGER_PORT + 2),
 * GASLESS_RELAY_MAX_FEE_LAMPORTS (100,000), GASLESS_RELAY_ALLOWED_PROGRAMS (comma list; default
 * system, token, token-2022, compute budget, memo), GASLESS_RELAY_API_KEY (the key it demands in x-api-key;
 * default one generated under DATA_DIR, src/gasless/relayApiKey.ts).
 */
import { Config, Effect, Option, Redacted } from "effect"
import * as path from "node:path"
import { DEFAULT_ALLOWED_PROGRAMS } from "./gaslessRules.js"
import { loadOrCreateRelayApiKey } from "./relayApiKey.js"
import { loadRelaySeed } from "./relay/relayKey.js"
import { startRelayServer } from "./relay/relayServer.js"

const RelaySettings = Config.all({
  port: Config.option(Config.integer("GASLESS_RELAY_PORT")),
  ledgerPort: Config.integer("LEDGER_PORT").pipe(Config.withDefault(8899)),
  maxFeeLamports: Config.integer("GASLESS_RELAY_MAX_FEE_LAMPORTS").pipe(
    Config.withDefault(100_000),
    Config.validate({ message: "GASLESS_RELAY_MAX_FEE_LAMPORTS must be a positive integer", validation: (n) => n > 0 })
  ),
  allowedPrograms: Config.string("GASLESS_RELAY_ALLOWED_PROGRAMS").pipe(
    Config.withDefault(""),
    Config.map((raw) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0))
  ),
  privateKey: Config.option(Config.redacted("GASLESS_RELAY_PRIVATE_KEY")),
  apiKey: Config.option(Config.redacted("GASLESS_RELAY_API_KEY"))
})

const FUND_BELOW_LAMPORTS = 1_000_000_000
const AIRDROP_LAMPORTS = 100_000_000_000

const ledgerCall = async <A>(rpcUrl: string, method: string, params: ReadonlyArray<unknown>): Promise<A> => {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  const body = (await response.json()) as { result?: A; error?: { message?: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message ?? "error"}`)
  return body.result as A
}

/** Starts the relay against the local ledger at `rpcUrl`; stops it when the scope closes. */
export const startLocalRelay = (rpcUrl: string, dataDir: string) =>
  Effect.gen(function* () {
    const settings = yield* RelaySettings
    const seed = loadRelaySeed(Option.getOrUndefined(Option.map(settings.privateKey, Redacted.value)), path.resolve(dataDir))
    const relay = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startRelayServer({
          port: Option.getOrElse(settings.port, () => settings.ledgerPort + 2),
          rpcUrl,
          feePayerSeed: seed,
          allowedPrograms: settings.allowedPrograms.length > 0 ? settings.allowedPrograms : DEFAULT_ALLOWED_PROGRAMS,
          maxFeeLamports: BigInt(settings.maxFeeLamports),
          apiKey: loadOrCreateRelayApiKey(Option.getOrUndefined(Option.map(settings.apiKey, Redacted.value)), path.resolve(dataDir))
        })
      ),
      (running) => Effect.promise(() => running.close())
    )
    const balance = yield* Effect.promise(() => ledgerCall<{ value: number }>(rpcUrl, "getBalance", [relay.feePayer, { commitment: "confirmed" }]))
    if (balance.value < FUND_BELOW_LAMPORTS) {
      yield* Effect.promise(() => ledgerCall<string>(rpcUrl, "requestAirdrop", [relay.feePayer, AIRDROP_LAMPORTS]))
    }
    yield* Effect.logInfo(`gasless fee-payer relay (Kora JSON-RPC) on ${relay.url}, fee payer ${relay.feePayer}`)
    return relay
  })
