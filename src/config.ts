/**
 * Configuration of the whole service, read once from the environment (or a ConfigProvider in tests).
 * Every variable the spec names is here with the spec's default; a bad value stops start-up with a
 * message naming the variable (Effect's ConfigError does that).
 */
import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect"
import { DEFAULT_DATA_DIR } from "./dataDir.js"

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
export const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((secret) => Redacted.value(secret).trim().length > 0)))
export const optionalString = (name: string) =>
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

/** `tenant=lamports,...`: per-tenant overrides of a daily amount (whitespace ignored). */
const tenantAmounts = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.map((raw) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0).map((entry) => entry.split("=").map((s) => s.trim()))),
    Config.validate({
      message: `${name} must be a comma separated list of tenant=lamports (a non-negative integer)`,
      validation: (entries) => entries.every((entry) => entry.length === 2 && entry[0] !== "" && /^\d{1,18}$/.test(entry[1] ?? ""))
    }),
    Config.map((entries) => new Map(entries.map(([tenant, lamports]) => [tenant ?? "", BigInt(lamports ?? "0")])))
  )

const bool = (name: string, fallback: boolean) => Config.boolean(name).pipe(Config.withDefault(fallback))

const percentile = Config.integer("CHAIN_PRIORITY_FEE_PERCENTILE").pipe(
  Config.withDefault(75),
  Config.validate({ message: "CHAIN_PRIORITY_FEE_PERCENTILE must be between 1 and 99", validation: (p) => p >= 1 && p <= 99 })
)

/** An optional base58 program id setting (a deployment of one of our programs on a real cluster). */
const programIdSetting = (name: string) =>
  optionalString(name).pipe(
    Config.validate({
      message: `${name} must be a base58 program id`,
      validation: (id) => Option.match(id, { onNone: () => true, onSome: (v) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(v) })
    })
  )

export const appConfig = Config.all({
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR)),
  databaseUrl: optionalSecret("DATABASE_URL"),
  // Pipeline workers hold a connection only for a statement (they mostly wait on RPC), so 20 serve 32
  // workers and the HTTP creates; keep the sum over all processes under the server's max_connections.
  databasePoolSize: positiveInt("DATABASE_POOL_SIZE", 20),
  /** Parameterised statements run as named (prepared) statements; off for a proxy that cannot hold them. */
  databasePreparedStatements: bool("DATABASE_PREPARED_STATEMENTS", true),
  /** A statement unanswered this long is looked up from another connection; its connection closed if the answer is lost (0: never). */
  databaseSilenceCheckMs: nonNegativeInt("DATABASE_SILENCE_CHECK_MS", 10_000),
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
    /**
     * The address the gateway listens on: every interface by default (a container's port is published), and
     * loopback under `npm start` (--dev), which prints a deployment-wide key (main.ts), unless this says otherwise.
     */
    host: Config.string("API_GATEWAY_HOST").pipe(Config.withDefault("0.0.0.0")),
    apiKeys: Config.redacted("API_GATEWAY_API_KEYS").pipe(Config.withDefault(Redacted.make(""))),
    enforceAuth: bool("API_GATEWAY_ENFORCE_AUTH", true),
    rateLimitPerMinute: positiveInt("API_GATEWAY_RATE_LIMIT_PER_MINUTE", 120),
    /** Failed authentications (missing or unknown key) per source address in 60 s before it gets 429. */
    authFailuresPerMinute: positiveInt("API_GATEWAY_AUTH_FAILURES_PER_MINUTE", 30)
  }),
  wallet: Config.all({
    signerBackend,
    keyEncryptionSecret: optionalSecret("WALLET_KEY_ENCRYPTION_SECRET"),
    kmsMasterSecret: optionalSecret("WALLET_KMS_MASTER_SECRET"),
    kmsKeyId: optionalString("WALLET_KMS_KEY_ID"),
    hsmPin: optionalSecret("WALLET_HSM_PIN"),
    hsmModuleSecret: optionalSecret("WALLET_HSM_MODULE_SECRET"),
    hsmSlot: optionalString("WALLET_HSM_SLOT"),
    // The PKCS#11 library of the token (docs/decisions/custody.md); SoftHSM's is /usr/lib/softhsm/libsofthsm2.so.
    hsmModule: optionalString("WALLET_HSM_MODULE"),
    mpcNodeSecrets: optionalSecret("WALLET_MPC_NODE_SECRETS"),
    mpcNode1Secret: optionalSecret("WALLET_MPC_NODE1_SECRET"),
    mpcNode2Secret: optionalSecret("WALLET_MPC_NODE2_SECRET"),
    mpcNode3Secret: optionalSecret("WALLET_MPC_NODE3_SECRET"),
    // Remote mpc nodes (`npm run start:mpc-node`), node 1 to 3 in order; this process then holds no node secret.
    mpcNodeUrls: urlList("WALLET_MPC_NODE_URLS"),
    mpcInternalToken: optionalSecret("WALLET_MPC_INTERNAL_TOKEN"),
    autofundPayerPrivateKey: optionalSecret("WALLET_AUTOFUND_PAYER_PRIVATE_KEY"),
    autofundDefaultLamports: positiveInt("WALLET_AUTOFUND_DEFAULT_LAMPORTS", 1_000_000_000),
    // Per tenant and UTC day, airdrop or payer transfer alike: 100 SOL (docs/decisions/input-hardening.md).
    autofundDailyCapLamports: positiveInt("WALLET_AUTOFUND_DAILY_CAP_LAMPORTS", 100_000_000_000)
  }),
  // Split deployment (docs/decisions/custody.md): the gateway+pipeline process reaches the wallet engine here.
  walletEngine: Config.all({
    url: optionalUrl("WALLET_ENGINE_URL"),
    internalToken: optionalSecret("WALLET_ENGINE_INTERNAL_TOKEN"),
    host: Config.string("WALLET_ENGINE_HOST").pipe(Config.withDefault("127.0.0.1"))
  }),
  chain: Config.all({
    rpcUrl: optionalUrl("CHAIN_RPC_URL"),
    poolUrls: urlList("CHAIN_RPC_POOL_URLS"),
    healthProbeMs: positiveInt("CHAIN_RPC_HEALTH_PROBE_MS", 15_000),
    maxRetries: nonNegativeInt("CHAIN_RPC_MAX_RETRIES", 3),
    retryDelayMs: nonNegativeInt("CHAIN_RPC_RETRY_DELAY_MS", 1_000),
    /** How long one RPC attempt may take (connect, headers, body) before the pool moves on. */
    timeoutMs: positiveInt("CHAIN_RPC_TIMEOUT_MS", 10_000),
    /** Calls made together share one JSON-RPC batch request, at most this many; 1 sends every call alone. */
    maxBatch: positiveInt("CHAIN_RPC_MAX_BATCH", 16),
    priorityFeePercentile: percentile,
    // 11,500 bps = 1.15x, what the spec means by "1150 bps (1.15x)" (docs/decisions.md).
    priorityFeeMultiplierBps: positiveInt("CHAIN_PRIORITY_FEE_MULTIPLIER_BPS", 11_500),
    priorityFeeMinMicroLamports: nonNegativeInt("CHAIN_PRIORITY_FEE_MIN_MICROLAMPORTS", 2_000),
    priorityFeeMaxMicroLamports: positiveInt("CHAIN_PRIORITY_FEE_MAX_MICROLAMPORTS", 200_000),
    gaslessRpcUrl: optionalUrl("GASLESS_RPC_URL"),
    // Sent as x-api-key to the relay (Kora's header); `npm start` sets it to its local relay's key.
    gaslessRpcApiKey: optionalSecret("GASLESS_RPC_API_KEY")
  }),
  gasless: Config.all({
    // Fees the relay may pay for one tenant's transactions per UTC day (0.1 SOL: some 20,000 plain transfers).
    tenantDailyFeeQuotaLamports: nonNegativeInt("GASLESS_TENANT_DAILY_FEE_QUOTA_LAMPORTS", 100_000_000),
    tenantFeeQuotas: tenantAmounts("GASLESS_TENANT_FEE_QUOTAS")
  }),
  outbox: Config.all({
    leaseMs: positiveInt("TX_OUTBOX_LEASE_MS", 30_000),
    pollMs: positiveInt("TX_OUTBOX_POLL_MS", 2_000),
    maxAttempts: positiveInt("TX_OUTBOX_MAX_ATTEMPTS", 6),
    // 0: an API-only process; pipeline workers run in other processes sharing the database (embedded or DATABASE_URL).
    workers: nonNegativeInt("TX_PIPELINE_WORKERS", 64),
    // How often the settlement resolver asks the chain about transactions left unresolved at `submitting` (issue 30).
    settlementSweepMs: positiveInt("TX_SETTLEMENT_SWEEP_MS", 2_000)
  }),
  approvals: Config.all({
    // The spec's 24 hours by default; an operator may shorten how long a transaction may wait at the gate.
    ttlMs: positiveInt("APPROVAL_TTL_MS", 24 * 60 * 60 * 1000),
    // How often the approval expirer looks for expired approvals (approve and the signer check expiry themselves).
    sweepMs: positiveInt("APPROVAL_EXPIRY_SWEEP_MS", 60_000)
  }),
  // Retention (actors/retention.ts; 0 keeps everything, the default): docs/decisions/production.md.
  retention: Config.all({
    auditDays: nonNegativeInt("AUDIT_RETENTION_DAYS", 0),
    txHistoryDays: nonNegativeInt("TX_HISTORY_RETENTION_DAYS", 0),
    sweepMs: positiveInt("RETENTION_SWEEP_MS", 600_000)
  }),
  deltaGuardToleranceLamports: nonNegativeInt("DELTA_GUARD_ABSOLUTE_TOLERANCE_LAMPORTS", 10_000),
  // After this long with an idle event loop, one memory-reducing collection gives unused heap back (actors/idleMemoryReducer.ts; 0: never).
  idleMemoryReduceAfterMs: nonNegativeInt("IDLE_MEMORY_REDUCE_AFTER_MS", 30_000),
  // V8's memory saver mode, Node 24 and later (observability/memorySaver.ts; start:prod:lean sets it).
  memorySaver: bool("V8_MEMORY_SAVER", false),
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
  observability: Config.all({
    // As the OpenTelemetry SDKs read it: the OTLP/HTTP base URL; unset, no span is exported (tracing.ts).
    otlpEndpoint: optionalUrl("OTEL_EXPORTER_OTLP_ENDPOINT"),
    serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("agent-custody")),
    // `json`: one JSON object per log line (with the traceId of the transaction a pipeline line is about).
    logFormat: Config.literal("text", "json")("LOG_FORMAT").pipe(Config.withDefault("text" as const))
  }),
  webhooks: Config.all({
    // Delivery attempts before an event goes to the dead-letter state (webhookDeliveries.ts).
    maxAttempts: positiveInt("WEBHOOK_MAX_ATTEMPTS", 15),
    // First retry after this long, doubling each attempt, capped at WEBHOOK_MAX_BACKOFF_MS.
    backoffMs: positiveInt("WEBHOOK_BACKOFF_MS", 5_000),
    maxBackoffMs: positiveInt("WEBHOOK_MAX_BACKOFF_MS", 3_600_000),
    timeoutMs: positiveInt("WEBHOOK_TIMEOUT_MS", 10_000),
    // The safety-net poll (deliveryQueue.ts): NOTIFY and in-process retry timers wake deliverers first.
    pollMs: positiveInt("WEBHOOK_POLL_MS", 15_000),
    workers: nonNegativeInt("WEBHOOK_WORKERS", 4),
    // Seals signing secrets at rest (secretSealing.ts); unset, they are stored as given.
    secretKey: optionalSecret("WEBHOOK_SECRET_KEY")
  }),
  ammOneProgramId: programIdSetting("AMM_ONE_PROGRAM_ID"),
  ammTwoProgramId: programIdSetting("AMM_TWO_PROGRAM_ID"),
  x402: Config.all({
    // x402_pay reaches only public addresses unless this is set (src/protocols/x402/resourceAddress.ts).
    allowPrivateHosts: Config.boolean("X402_ALLOW_PRIVATE_HOSTS").pipe(Config.withDefault(false))
  }),
  liquidStakingProgramId: programIdSetting("LIQUID_STAKING_PROGRAM_ID"),
  lendingMarketProgramId: programIdSetting("LENDING_MARKET_PROGRAM_ID"),
  oracle: Config.all({
    // The oldest oracle price (by the chain's clock) the service uses; 60 s as Pyth's examples (docs/decisions/oracle.md).
    maxPriceAgeSeconds: positiveInt("ORACLE_MAX_PRICE_AGE_SECONDS", 60)
  }),
  mcp: Config.all({
    apiBaseUrl: optionalUrl("API_BASE_URL"),
    apiKey: optionalSecret("API_KEY"),
    tenantId: optionalString("TENANT_ID")
  })
})
export type AppConfigShape = Config.Config.Success<typeof appConfig>

/** The default program id of the escrow program on the local ledger. */
export const LOCAL_ESCROW_PROGRAM_ID = "Escrow1111111111111111111111111111111111111"

/**
 * The three mpc node secrets: WALLET_MPC_NODE_SECRETS (comma separated) or WALLET_MPC_NODE{1,2,3}_SECRET.
 * None when neither form is complete; three distinct secrets are required (checkCombinations).
 */
export const mpcNodeSecrets = (config: AppConfigShape): Option.Option<ReadonlyArray<Redacted.Redacted<string>>> => {
  const wallet = config.wallet
  if (Option.isSome(wallet.mpcNodeSecrets)) {
    const parts = Redacted.value(wallet.mpcNodeSecrets.value).split(",").map((s) => s.trim())
    return parts.length === 3 && parts.every((s) => s !== "") && new Set(parts).size === 3 ? Option.some(parts.map((s) => Redacted.make(s))) : Option.none()
  }
  const single = [wallet.mpcNode1Secret, wallet.mpcNode2Secret, wallet.mpcNode3Secret]
  if (!single.every(Option.isSome)) return Option.none()
  const values = single.map((s) => Redacted.value(Option.getOrThrow(s)))
  return new Set(values).size === 3 ? Option.some(values.map((s) => Redacted.make(s))) : Option.none()
}

/** Every variable that opens or is a key; none may be configured where the wallet engine is remote. */
const KEY_SECRETS = [
  ["WALLET_KEY_ENCRYPTION_SECRET", (c: AppConfigShape) => c.wallet.keyEncryptionSecret],
  ["WALLET_KMS_MASTER_SECRET", (c: AppConfigShape) => c.wallet.kmsMasterSecret],
  ["WALLET_HSM_PIN", (c: AppConfigShape) => c.wallet.hsmPin],
  ["WALLET_HSM_MODULE_SECRET", (c: AppConfigShape) => c.wallet.hsmModuleSecret],
  ["WALLET_MPC_NODE_SECRETS", (c: AppConfigShape) => c.wallet.mpcNodeSecrets],
  ["WALLET_MPC_NODE1_SECRET", (c: AppConfigShape) => c.wallet.mpcNode1Secret],
  ["WALLET_MPC_NODE2_SECRET", (c: AppConfigShape) => c.wallet.mpcNode2Secret],
  ["WALLET_MPC_NODE3_SECRET", (c: AppConfigShape) => c.wallet.mpcNode3Secret],
  // Not a key, but it makes the nodes sign: it belongs with the wallet engine too.
  ["WALLET_MPC_INTERNAL_TOKEN", (c: AppConfigShape) => c.wallet.mpcInternalToken],
  ["WALLET_AUTOFUND_PAYER_PRIVATE_KEY", (c: AppConfigShape) => c.wallet.autofundPayerPrivateKey]
] as const

/** With WALLET_ENGINE_URL the process signs through the wallet engine and must hold no key secret at all. */
const checkRemoteSigning = (config: AppConfigShape): Either.Either<AppConfigShape, ConfigError.ConfigError> => {
  if (Option.isNone(config.walletEngine.internalToken)) {
    return Either.left(ConfigError.MissingData(["WALLET_ENGINE_INTERNAL_TOKEN"], "WALLET_ENGINE_INTERNAL_TOKEN is required with WALLET_ENGINE_URL"))
  }
  const held = KEY_SECRETS.find(([, read]) => Option.isSome(read(config)))
  if (held !== undefined) {
    return Either.left(
      ConfigError.InvalidData([held[0]], `${held[0]} must not be set where WALLET_ENGINE_URL is: key secrets belong to the wallet engine process only`)
    )
  }
  return Either.right(config)
}

/** The default backend has its configuration, and mpc secrets, when given, are complete. */
export const checkKeyBackends = (config: AppConfigShape): Either.Either<AppConfigShape, ConfigError.ConfigError> => {
  const missing = (name: string, why: string) => Either.left(ConfigError.MissingData([name], why))
  const backend = config.wallet.signerBackend
  if (backend === "encrypted-file" && Option.isNone(config.wallet.keyEncryptionSecret)) {
    return missing("WALLET_KEY_ENCRYPTION_SECRET", "WALLET_KEY_ENCRYPTION_SECRET is required by WALLET_SIGNER_BACKEND=encrypted-file")
  }
  if (backend === "kms" && Option.isNone(config.wallet.kmsMasterSecret)) {
    return missing("WALLET_KMS_MASTER_SECRET", "WALLET_KMS_MASTER_SECRET is required by WALLET_SIGNER_BACKEND=kms")
  }
  const mpcGiven = [config.wallet.mpcNodeSecrets, config.wallet.mpcNode1Secret, config.wallet.mpcNode2Secret, config.wallet.mpcNode3Secret].some(Option.isSome)
  const mpcRemote = config.wallet.mpcNodeUrls.length > 0
  if (mpcRemote) {
    if (config.wallet.mpcNodeUrls.length !== 3) {
      return Either.left(ConfigError.InvalidData(["WALLET_MPC_NODE_URLS"], "WALLET_MPC_NODE_URLS must list three node URLs (node 1, 2, 3), comma separated"))
    }
    if (Option.isNone(config.wallet.mpcInternalToken)) {
      return missing("WALLET_MPC_INTERNAL_TOKEN", "WALLET_MPC_INTERNAL_TOKEN is required with WALLET_MPC_NODE_URLS")
    }
    if (mpcGiven) {
      return Either.left(
        ConfigError.InvalidData(["WALLET_MPC_NODE_URLS"], "with WALLET_MPC_NODE_URLS the node secrets belong to the node processes: do not set WALLET_MPC_NODE_SECRETS or WALLET_MPC_NODE{1,2,3}_SECRET here")
      )
    }
  }
  if ((backend === "mpc" || mpcGiven) && !mpcRemote && Option.isNone(mpcNodeSecrets(config))) {
    return Either.left(
      ConfigError.InvalidData(
        [Option.isSome(config.wallet.mpcNodeSecrets) ? "WALLET_MPC_NODE_SECRETS" : "WALLET_MPC_NODE1_SECRET"],
        "mpc needs three distinct node secrets: WALLET_MPC_NODE_SECRETS (three, comma separated) or WALLET_MPC_NODE1_SECRET, WALLET_MPC_NODE2_SECRET and WALLET_MPC_NODE3_SECRET (or WALLET_MPC_NODE_URLS for node processes)"
      )
    )
  }
  if (backend === "hsm" && Option.isNone(config.wallet.hsmPin)) {
    return missing("WALLET_HSM_PIN", "WALLET_HSM_PIN is required by WALLET_SIGNER_BACKEND=hsm")
  }
  if (backend === "hsm" && Option.isNone(config.wallet.hsmModule)) {
    return missing("WALLET_HSM_MODULE", "WALLET_HSM_MODULE (the token's PKCS#11 library) is required by WALLET_SIGNER_BACKEND=hsm")
  }
  return Either.right(config)
}

/** Cross-field rules that a single variable's validation cannot express. */
const checkCombinations = (config: AppConfigShape): Either.Either<AppConfigShape, ConfigError.ConfigError> => {
  const missing = (name: string, why: string) => Either.left(ConfigError.MissingData([name], why))
  const wallet = Option.isSome(config.walletEngine.url) ? checkRemoteSigning(config) : checkKeyBackends(config)
  if (Either.isLeft(wallet)) return wallet
  if (config.gateway.enforceAuth && Redacted.value(config.gateway.apiKeys).trim() === "") {
    return missing("API_GATEWAY_API_KEYS", "API_GATEWAY_API_KEYS is required while API_GATEWAY_ENFORCE_AUTH is true")
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
