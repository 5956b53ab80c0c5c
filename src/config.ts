/**
 * Configuration of the whole service, read once from the environment (or a ConfigProvider in tests).
 * Every variable the spec names is here with the spec's default; a bad value stops start-up with a
 * message naming the variable (Effect's ConfigError does that).
 */
import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect"

/** Ports may be 0 (pick a free one), which tests use. */
const port = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a port number (0-65535)`, validation: (p) => p >= 0 && p < 65536 })
  )

const positiveInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 })
  )

const nonNegativeInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a non-negative integer`, validation: (n) => n >= 0 })
  )

/** An empty value counts as unset: a blank secret must never pass for a configured one. */
const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((secret) => Redacted.value(secret).trim().length > 0)))
const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((s) => s.trim().length > 0)))

export const SIGNER_BACKENDS = ["encrypted-file", "memory", "kms", "hsm", "mpc"] as const
export type SignerBackend = (typeof SIGNER_BACKENDS)[number]

const signerBackend = Config.literal(...SIGNER_BACKENDS)("WALLET_SIGNER_BACKEND").pipe(
  Config.withDefault("encrypted-file" as const)
)

const urlList = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.map((raw) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)),
    Config.validate({
      message: `${name} must be a comma separated list of http(s) URLs`,
      validation: (urls) => urls.every((u) => /^https?:\/\/\S+$/.test(u))
    })
  )

const optionalUrl = (name: string) =>
  optionalString(name).pipe(
    Config.validate({
      message: `${name} must be an http(s) URL`,
      validation: (u) => Option.match(u, { onNone: () => true, onSome: (v) => /^https?:\/\/\S+$/.test(v) })
    })
  )

const bool = (name: string, fallback: boolean) => Config.boolean(name).pipe(Config.withDefault(fallback))

const percentile = Config.integer("CHAIN_PRIORITY_FEE_PERCENTILE").pipe(
  Config.withDefault(75),
  Config.validate({ message: "CHAIN_PRIORITY_FEE_PERCENTILE must be between 1 and 99", validation: (p) => p >= 1 && p <= 99 })
)

export const appConfig = Config.all({
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  databaseUrl: optionalSecret("DATABASE_URL"),
  // Pipeline workers hold a connection only for a statement (they mostly wait on RPC), so 20 serve 32
  // workers and the HTTP creates; keep the sum over all processes under the server's max_connections.
  databasePoolSize: positiveInt("DATABASE_POOL_SIZE", 20),
  ports: Config.all({
    gateway: port("API_GATEWAY_PORT", 3000),
    walletEngine: port("WALLET_ENGINE_PORT", 3002),
    policyEngine: port("POLICY_ENGINE_PORT", 3003),
    agentRuntime: port("AGENT_RUNTIME_PORT", 3004),
    protocolAdapters: port("PROTOCOL_ADAPTERS_PORT", 3005),
    transactionEngine: port("TRANSACTION_ENGINE_PORT", 3006),
    auditObservability: port("AUDIT_OBSERVABILITY_PORT", 3007),
    mcpServer: port("MCP_SERVER_PORT", 3008),
    ledger: port("LEDGER_PORT", 8899)
  }),
  gateway: Config.all({
    apiKeys: Config.redacted("API_GATEWAY_API_KEYS").pipe(Config.withDefault(Redacted.make(""))),
    enforceAuth: bool("API_GATEWAY_ENFORCE_AUTH", true),
    rateLimitPerMinute: positiveInt("API_GATEWAY_RATE_LIMIT_PER_MINUTE", 120)
  }),
  wallet: Config.all({
    signerBackend,
    keyEncryptionSecret: optionalSecret("WALLET_KEY_ENCRYPTION_SECRET"),
    kmsMasterSecret: optionalSecret("WALLET_KMS_MASTER_SECRET"),
    kmsKeyId: optionalString("WALLET_KMS_KEY_ID"),
    hsmPin: optionalSecret("WALLET_HSM_PIN"),
    hsmModuleSecret: optionalSecret("WALLET_HSM_MODULE_SECRET"),
    hsmSlot: optionalString("WALLET_HSM_SLOT"),
    mpcNodeSecrets: optionalSecret("WALLET_MPC_NODE_SECRETS"),
    mpcNode1Secret: optionalSecret("WALLET_MPC_NODE1_SECRET"),
    mpcNode2Secret: optionalSecret("WALLET_MPC_NODE2_SECRET"),
    mpcNode3Secret: optionalSecret("WALLET_MPC_NODE3_SECRET"),
    autofundPayerPrivateKey: optionalSecret("WALLET_AUTOFUND_PAYER_PRIVATE_KEY"),
    autofundDefaultLamports: positiveInt("WALLET_AUTOFUND_DEFAULT_LAMPORTS", 1_000_000_000)
  }),
  chain: Config.all({
    rpcUrl: optionalUrl("CHAIN_RPC_URL"),
    poolUrls: urlList("CHAIN_RPC_POOL_URLS"),
    healthProbeMs: positiveInt("CHAIN_RPC_HEALTH_PROBE_MS", 15_000),
    maxRetries: nonNegativeInt("CHAIN_RPC_MAX_RETRIES", 3),
    retryDelayMs: nonNegativeInt("CHAIN_RPC_RETRY_DELAY_MS", 1_000),
    priorityFeePercentile: percentile,
    // 11,500 bps = 1.15x, what the spec means by "1150 bps (1.15x)" (docs/decisions.md).
    priorityFeeMultiplierBps: positiveInt("CHAIN_PRIORITY_FEE_MULTIPLIER_BPS", 11_500),
    priorityFeeMinMicroLamports: nonNegativeInt("CHAIN_PRIORITY_FEE_MIN_MICROLAMPORTS", 2_000),
    priorityFeeMaxMicroLamports: positiveInt("CHAIN_PRIORITY_FEE_MAX_MICROLAMPORTS", 200_000),
    gaslessRpcUrl: optionalUrl("GASLESS_RPC_URL")
  }),
  outbox: Config.all({
    leaseMs: positiveInt("TX_OUTBOX_LEASE_MS", 30_000),
    pollMs: positiveInt("TX_OUTBOX_POLL_MS", 2_000),
    maxAttempts: positiveInt("TX_OUTBOX_MAX_ATTEMPTS", 6),
    // 0: an API-only process; pipeline workers run in other processes sharing the PostgreSQL database.
    workers: nonNegativeInt("TX_PIPELINE_WORKERS", 64)
  }),
  deltaGuardToleranceLamports: nonNegativeInt("DELTA_GUARD_ABSOLUTE_TOLERANCE_LAMPORTS", 10_000),
  chaosEnabled: bool("CHAOS_ENABLED", false),
  agents: Config.all({
    loopIntervalMs: positiveInt("AGENT_LOOP_INTERVAL_MS", 5_000),
    requireBacktestPass: bool("AGENT_REQUIRE_BACKTEST_PASS", false),
    requireManifest: bool("AGENT_REQUIRE_MANIFEST", false),
    manifestSigningSecret: optionalSecret("AGENT_MANIFEST_SIGNING_SECRET")
  }),
  escrowProgramId: optionalString("ESCROW_PROGRAM_ID").pipe(
    Config.validate({
      message: "ESCROW_PROGRAM_ID must be a base58 program id",
      validation: (id) => Option.match(id, { onNone: () => true, onSome: (v) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(v) })
    })
  ),
  mcp: Config.all({
    apiBaseUrl: optionalUrl("API_BASE_URL"),
    apiKey: optionalSecret("API_KEY"),
    tenantId: optionalString("TENANT_ID")
  })
})
export type AppConfigShape = Config.Config.Success<typeof appConfig>

/** The default program id of the escrow program on the local ledger. */
export const LOCAL_ESCROW_PROGRAM_ID = "Escrow1111111111111111111111111111111111111"

/** Cross-field rules that a single variable's validation cannot express. */
const checkCombinations = (config: AppConfigShape): Either.Either<AppConfigShape, ConfigError.ConfigError> => {
  const missing = (name: string, why: string) => Either.left(ConfigError.MissingData([name], why))
  const backend = config.wallet.signerBackend
  if (backend === "encrypted-file" && Option.isNone(config.wallet.keyEncryptionSecret)) {
    return missing("WALLET_KEY_ENCRYPTION_SECRET", "WALLET_KEY_ENCRYPTION_SECRET is required by WALLET_SIGNER_BACKEND=encrypted-file")
  }
  if (backend === "kms" || backend === "hsm" || backend === "mpc") {
    return Either.left(
      ConfigError.InvalidData(["WALLET_SIGNER_BACKEND"], `WALLET_SIGNER_BACKEND=${backend} is not available in this build; use encrypted-file or memory`)
    )
  }
  if (config.gateway.enforceAuth && Redacted.value(config.gateway.apiKeys).trim() === "") {
    return missing("API_GATEWAY_API_KEYS", "API_GATEWAY_API_KEYS is required while API_GATEWAY_ENFORCE_AUTH is true")
  }
  if (config.outbox.workers === 0 && Option.isNone(config.databaseUrl)) {
    return Either.left(
      ConfigError.InvalidData(["TX_PIPELINE_WORKERS"], "TX_PIPELINE_WORKERS=0 needs DATABASE_URL: workers in another process must share the database, and the embedded PGlite has no other process")
    )
  }
  if (config.chain.priorityFeeMinMicroLamports > config.chain.priorityFeeMaxMicroLamports) {
    return Either.left(
      ConfigError.InvalidData(["CHAIN_PRIORITY_FEE_MIN_MICROLAMPORTS"], "CHAIN_PRIORITY_FEE_MIN_MICROLAMPORTS must not exceed CHAIN_PRIORITY_FEE_MAX_MICROLAMPORTS")
    )
  }
  return Either.right(config)
}

export class AppConfig extends Effect.Service<AppConfig>()("AppConfig", {
  effect: Effect.flatMap(appConfig, (config) => Either.match(checkCombinations(config), {
    onLeft: (error) => Effect.fail(error),
    onRight: (ok) => Effect.succeed(ok)
  }))
}) {}
