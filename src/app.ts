/**
 * The whole service as one layer: database, infrastructure, components, actors and the gateway. It
 * needs only AppConfig and ChainEndpoints, so main.ts and the tests compose it the same way.
 *
 * To add a component: export its routes (an array of `route(...)`) and add them to `routes`; add each of its
 * services to the lowest tier below that holds nothing it needs (its `DefaultWithoutDependencies` when it declares
 * `dependencies`, else its `Default`; the compiler says when a tier is too low); add long-lived fibers (scoped
 * layers using superviseActor) to `ActorsLive`.
 */
import { Layer } from "effect"
import { AgentSchedulerLive } from "../actors/agentScheduler.js"
import { AgentSupervisorLive } from "../actors/agentSupervisor.js"
import { ApprovalExpirerLive } from "../actors/approvalExpirer.js"
import { IdleMemoryReducerLive } from "../actors/idleMemoryReducer.js"
import { RetentionLive } from "../actors/retention.js"
import { AuditRetention } from "./audit/auditRetention.js"
import { HistoryRetention } from "./pipeline/historyRetention.js"
import { BudgetReconcilerLive } from "../actors/budgetReconciler.js"
import { SettlementResolverLive } from "../actors/settlementResolver.js"
import { PipelineWorkersLive } from "../actors/pipelineWorkers.js"
import { ActorRegistry } from "./supervision/actorRegistry.js"
import { Signer } from "./pipeline/signer.js"
import { RpcProberLive } from "../actors/rpcProber.js"
import { AgentBreaches } from "./agents/agentBreaches.js"
import { AgentExecution } from "./agents/agentExecution.js"
import { AgentRepo } from "./agents/agentRepo.js"
import { AgentService } from "./agents/agentService.js"
import { autonomyStateRoutes } from "./agents/autonomyStateHttp.js"
import { AgentBudgets } from "./agents/budgets.js"
import { agentRoutes } from "./agents/http.js"
import { ManifestStore } from "./agents/manifestStore.js"
import { ActionRunner } from "./agents/runtime/actionRunner.js"
import { AgentLeases } from "./agents/runtime/agentLeases.js"
import { AgentRunStore } from "./agents/runtime/runStore.js"
import { Strategy } from "./agents/strategy.js"
import { Treasury } from "./agents/treasury.js"
import { WalletSpend } from "./agents/walletSpend.js"
import { OffChainIntentsLive } from "./agents/offChainIntents.js"
import { AgentBreachReportLive, AgentBudgetOnRetryLive, AgentBudgetReleaseLive, WalletSpendGateLive } from "./agents/pipelinePorts.js"
import { strategyRoutes, treasuryRoutes } from "./agents/treasuryHttp.js"
import { AuditEvents } from "./audit/auditEvents.js"
import { AuditLog } from "./audit/auditLog.js"
import { auditRoutes } from "./audit/http.js"
import { MetricCounters } from "./audit/metricCounters.js"
import { ChainClient } from "./chain/chainClient.js"
import { RpcFailoverMetricsLive } from "./chain/failoverMetrics.js"
import { rpcPoolRoutes } from "./chain/poolHttp.js"
import { DatabaseLive } from "./db/database.js"
import { Notifications } from "./db/notifications.js"
import { consoleRoutes } from "./gateway/consoleHttp.js"
import { healthRoutes } from "./gateway/health.js"
import { openApiRoutes } from "./gateway/openApiHttp.js"
import { mcpRoutes } from "./mcp/routes.js"
import { runtimeRoutes } from "./gateway/runtimeHttp.js"
import { gatewayServerLayer } from "./gateway/server.js"
import { ListeningPorts, RecordGatewayPortLive } from "./gateway/listeningPorts.js"
import { StageStreamLive } from "./gateway/stream.js"
import { prometheusRoutes } from "./observability/prometheus.js"
import { StageTelemetry } from "./observability/stageTelemetry.js"
import { TracingLive } from "./observability/tracing.js"
import { LoggingLive } from "./observability/logging.js"
import { WebhookDeliverersLive } from "../actors/webhookDeliverers.js"
import { WebhookDeliveryQueue } from "./webhooks/deliveryQueue.js"
import { webhookRoutes } from "./webhooks/http.js"
import { WebhookRepo } from "./webhooks/webhookRepo.js"
import { Chaos } from "./pipeline/chaos.js"
import { chaosRoutes } from "./pipeline/chaosHttp.js"
import { ChainFacts } from "./chain/chainFacts.js"
import { PipelineExecutor } from "./pipeline/executor.js"
import { transactionRoutes } from "./pipeline/http.js"
import { approvalRoutes } from "./pipeline/approvals/http.js"
import { WalletQuorums } from "./pipeline/approvals/walletQuorums.js"
import { ApprovalGate } from "./pipeline/approvals/approvalGate.js"
import { signRoutes } from "./pipeline/signHttp.js"
import { MessageBuilder } from "./pipeline/messageBuilder.js"
import { Outbox, OutboxDepthLive } from "./pipeline/outbox.js"
import { GaslessStages } from "./pipeline/gaslessStages.js"
import { X402Stages } from "./pipeline/x402Stages.js"
import { PostChecks } from "./pipeline/postChecks.js"
import { ReadOnlyIntents } from "./pipeline/readOnlyIntents.js"
import { StageTransitions } from "./pipeline/stageTransitions.js"
import { StageEventFeedLive, StageEvents } from "./pipeline/stageEvents.js"
import { SignOnly } from "./pipeline/signOnly.js"
import { EffectSimulation } from "./pipeline/effectSimulation.js"
import { Submission } from "./pipeline/submission.js"
import { Settlement } from "./pipeline/settlement.js"
import { SignatureLanding } from "./chain/landing.js"
import { TransactionRepo } from "./pipeline/transactionRepo.js"
import { TransactionService } from "./pipeline/transactionService.js"
import { TransactionSummaries } from "./pipeline/transactionSummaries.js"
import { TransactionWaits } from "./pipeline/transactionWaits.js"
import { policyRoutes } from "./policy/http.js"
import { PolicyEngine } from "./policy/policyEngine.js"
import { PolicyService } from "./policy/policyService.js"
import { riskRoutes } from "./risk/http.js"
import { freezeRoutes } from "./freeze/http.js"
import { valueLimitRoutes } from "./valueLimits/http.js"
import { policyBacktestRoutes } from "./policyBacktest/http.js"
import { PolicyBacktests } from "./policyBacktest/policyBacktest.js"
import { ValueLimitStore } from "./risk/valueLimits.js"
import { KillSwitch } from "./freeze/killSwitch.js"
import { FrozenGate } from "./pipeline/frozenGate.js"
import { RiskConfigRepo } from "./risk/riskConfigRepo.js"
import { escrowRoutes } from "./protocols/escrow/http.js"
import { escrowHelperRoutes } from "./pipeline/escrowHelpersHttp.js"
import { positionRoutes } from "./positions/http.js"
import { EscrowIndexer } from "./protocols/escrow/indexer.js"
import { EscrowProgram } from "./protocols/escrow/program.js"
import { AmmPrograms } from "./protocols/amm/programs.js"
import { LiquidStakingProgram } from "./protocols/staking/program.js"
import { LendingMarketProgram } from "./protocols/lending/program.js"
import { OracleFreshness } from "./protocols/oracle/oracleFreshness.js"
import { StakePositionIndexer } from "./positions/stakePositionIndexer.js"
import { LendingPositionIndexer } from "./positions/lendingPositionIndexer.js"
import { WalletPositions } from "./positions/walletPositions.js"
import { EscrowRepo } from "./protocols/escrow/escrowRepo.js"
import { defiRoutes } from "./protocols/defiHttp.js"
import { swapRoutes } from "./protocols/amm/http.js"
import { oracleRoutes } from "./protocols/oracle/http.js"
import { protocolRoutes } from "./protocols/http.js"
import { ProtocolHealthCheck } from "./protocols/protocolHealth.js"
import { walletRoutes } from "./wallet/http.js"
import { KeyStore } from "./wallet/keyStore.js"
import { MpcCluster } from "./wallet/mpc/mpcCluster.js"
import { WalletRepo } from "./wallet/walletRepo.js"
import { WalletService } from "./wallet/walletService.js"
import { keyRoutes } from "./keys/http.js"
import { KeyRingLive } from "./keys/keyRingLive.js"
import { IssuedKeys } from "./keys/issuedKeys.js"
import { KeyService } from "./keys/keyService.js"
import { KeyUsage } from "./keys/keyUsage.js"
import { KeyAgentsLive } from "./agents/keyAgentsPort.js"
import { SigningFreezes } from "./wallet/signingFreezes.js"
import { PolicyRepo } from "./policy/policyRepo.js"
import { PolicyStore } from "./policy/policyStore.js"
import { PortfolioValueRepo } from "./risk/portfolioValueRepo.js"
import { PortfolioValuation } from "./risk/portfolioValuation.js"
import { PortfolioProjector } from "./risk/portfolioProjection.js"
import { TransactionValuer } from "./risk/transactionValue.js"
import { PositionRepo } from "./positions/positionRepo.js"
import { RecordedTransactions } from "./pipeline/recordedTransactions.js"
import { SealedKeyRepo } from "./wallet/sealedKeyRepo.js"
import { AutoFunder } from "./wallet/autoFund.js"
import { SignatureLog } from "./pipeline/signatureLog.js"
import { UnresolvedTransactions } from "./pipeline/unresolvedTransactions.js"
import { X402PaymentRepo } from "./protocols/x402/paymentRepo.js"
import { ApiKeyRepo } from "./keys/keyRepo.js"
import { GaslessQuota } from "./pipeline/gaslessQuota.js"
import { GaslessRelay } from "./gasless/relayClient.js"
import { ProtocolPrograms } from "./protocols/protocolPrograms.js"
import { ApprovalPreviews } from "./pipeline/approvals/approvalPreviews.js"

const componentRoutes = [
  ...healthRoutes,
  ...walletRoutes,
  ...transactionRoutes,
  ...approvalRoutes,
  ...signRoutes,
  ...chaosRoutes,
  ...auditRoutes,
  ...prometheusRoutes,
  ...webhookRoutes,
  ...keyRoutes,
  ...rpcPoolRoutes,
  ...protocolRoutes,
  ...defiRoutes,
  ...swapRoutes,
  ...oracleRoutes,
  ...escrowHelperRoutes,
  ...escrowRoutes,
  ...positionRoutes,
  ...runtimeRoutes,
  ...policyRoutes,
  ...riskRoutes,
  ...freezeRoutes,
  ...valueLimitRoutes,
  ...policyBacktestRoutes,
  ...agentRoutes,
  ...autonomyStateRoutes,
  ...treasuryRoutes,
  ...strategyRoutes,
  ...consoleRoutes,
  ...mcpRoutes
]

/** Every route, and the OpenAPI document generated from their declarations. */
export const routes = [...componentRoutes, ...openApiRoutes(componentRoutes)]

/*
 * Every service, in tiers: a tier's services need only what the tiers below it provide (the services
 * each declares in its `dependencies` and what it takes from context), so each is built once, from one
 * shared context. A service's `Default` provides its own `dependencies` (for tests and the other programs
 * that build one alone); here its `DefaultWithoutDependencies` is used instead: with each service
 * providing its own, the whole was a graph of about 500 layers whose machinery took a third of a restart
 * (docs/decisions/production.md, "The layers, in tiers"). A service placed in a tier below one it needs
 * leaves that need in AppLive's type, and the build fails: move it up.
 */

/** Tier 0: the tables' owners, metrics, signing freezes and the oracle's settings (database and config only). */
const RecordsLive = Layer.mergeAll(
  WalletRepo.Default, SealedKeyRepo.Default, SigningFreezes.Default, TransactionRepo.Default, TransactionSummaries.Default,
  SignatureLog.Default, UnresolvedTransactions.Default, X402PaymentRepo.Default, RecordedTransactions.Default,
  PolicyRepo.Default, PolicyStore.Default, RiskConfigRepo.Default, PortfolioValueRepo.Default, PositionRepo.Default,
  EscrowRepo.Default, OracleFreshness.Default, AgentRepo.Default, AgentBreaches.Default, AgentLeases.Default,
  ApiKeyRepo.Default, AuditEvents.Default, MetricCounters.Default
)

/**
 * Tier 1: the audit log, the chain client, stage events, the outbox, our programs' addresses, policies, issued API
 * keys (issue 36), and the first of the ports the agents component provides to the others (a portfolio breach by an
 * agent's spend, recorded for the supervisor; whether a key's agent exists).
 */
const FoundationsLive = Layer.mergeAll(
  AuditLog.DefaultWithoutDependencies, ChainClient.Default, StageEvents.Default, StageTelemetry.Default, ListeningPorts.Default,
  Outbox.Default, Chaos.Default, GaslessQuota.Default, GaslessRelay.Default, MpcCluster.Default,
  EscrowProgram.Default, AmmPrograms.Default, LiquidStakingProgram.Default, LendingMarketProgram.Default,
  PolicyService.DefaultWithoutDependencies, PolicyBacktests.DefaultWithoutDependencies,
  IssuedKeys.DefaultWithoutDependencies, KeyAgentsLive, AgentRunStore.Default, AgentBreachReportLive,
  WebhookRepo.Default, WebhookDeliveryQueue.Default
)

/** Tier 2: chain facts, landing and building, keys, budgets and treasury, quorums, the event feed. */
const ChainAndKeysLive = Layer.mergeAll(
  ChainFacts.Default, SignatureLanding.Default, MessageBuilder.Default, ProtocolPrograms.DefaultWithoutDependencies,
  ProtocolHealthCheck.Default, AutoFunder.Default, KeyStore.DefaultWithoutDependencies, KeyService.DefaultWithoutDependencies,
  KeyUsage.DefaultWithoutDependencies, AgentBudgets.DefaultWithoutDependencies, Treasury.Default, ManifestStore.Default,
  WalletQuorums.DefaultWithoutDependencies, TransactionWaits.DefaultWithoutDependencies, StageEventFeedLive, OutboxDepthLive
)

/**
 * Tier 3: wallets, the signer, submission, the simulation of a transaction's whole effect that every signing path
 * runs (issue 31), the protocols' indexers and valuations, the agents' budget ports (a retry reserves the agent's
 * budget again; a failure releases it), and the gateway's key ring, kept current by NOTIFY.
 */
const WalletsAndEffectsLive = Layer.mergeAll(
  WalletService.DefaultWithoutDependencies, Signer.DefaultWithoutDependencies, Submission.Default,
  EffectSimulation.DefaultWithoutDependencies, ApprovalPreviews.DefaultWithoutDependencies,
  EscrowIndexer.DefaultWithoutDependencies, StakePositionIndexer.DefaultWithoutDependencies,
  LendingPositionIndexer.DefaultWithoutDependencies, WalletPositions.DefaultWithoutDependencies,
  PortfolioValuation.DefaultWithoutDependencies, TransactionValuer.DefaultWithoutDependencies,
  AgentBudgetOnRetryLive, AgentBudgetReleaseLive, KeyRingLive
)

/** Tier 4: value limits, the portfolio's projection, strategies, read-only intents and sign-only. */
const ValuesLive = Layer.mergeAll(
  ValueLimitStore.DefaultWithoutDependencies, PortfolioProjector.DefaultWithoutDependencies, Strategy.DefaultWithoutDependencies,
  ReadOnlyIntents.DefaultWithoutDependencies, SignOnly.DefaultWithoutDependencies
)

/** Tier 5: the policy engine, agents, and the off-chain intents' port (treasury moves and paper trades the pipeline performs). */
const PolicyLive = Layer.mergeAll(PolicyEngine.DefaultWithoutDependencies, AgentService.DefaultWithoutDependencies, OffChainIntentsLive)

/**
 * Tiers 6-8: stage transitions, the gate a frozen wallet closes, approvals, post-checks, and settlement: what the
 * chain says settles every transaction whose bytes may have left (issue 30).
 */
const StagesLive = Settlement.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(Layer.mergeAll(ApprovalGate.DefaultWithoutDependencies, PostChecks.DefaultWithoutDependencies, KillSwitch.DefaultWithoutDependencies)),
  Layer.provideMerge(Layer.mergeAll(StageTransitions.DefaultWithoutDependencies, FrozenGate.DefaultWithoutDependencies))
)

/** Tiers 9-12: intake, gasless and x402 stages, the executor, agents' execution and actions, the spend gate. */
const EngineLive = WalletSpendGateLive.pipe(
  Layer.provideMerge(Layer.mergeAll(ActionRunner.DefaultWithoutDependencies, WalletSpend.DefaultWithoutDependencies)),
  Layer.provideMerge(Layer.mergeAll(PipelineExecutor.DefaultWithoutDependencies, AgentExecution.DefaultWithoutDependencies)),
  Layer.provideMerge(Layer.mergeAll(TransactionService.DefaultWithoutDependencies, GaslessStages.DefaultWithoutDependencies, X402Stages.DefaultWithoutDependencies))
)

const ServicesLive = EngineLive.pipe(
  Layer.provideMerge(StagesLive),
  Layer.provideMerge(PolicyLive),
  Layer.provideMerge(ValuesLive),
  Layer.provideMerge(WalletsAndEffectsLive),
  Layer.provideMerge(ChainAndKeysLive),
  Layer.provideMerge(FoundationsLive),
  Layer.provideMerge(RecordsLive)
)

/** Long-lived supervised fibers (scoped layers without output). */
const ActorsLive = Layer.mergeAll(
  PipelineWorkersLive,
  ApprovalExpirerLive,
  RpcProberLive,
  RpcFailoverMetricsLive,
  BudgetReconcilerLive,
  SettlementResolverLive,
  AgentSchedulerLive,
  AgentSupervisorLive,
  WebhookDeliverersLive,
  IdleMemoryReducerLive,
  RetentionLive.pipe(Layer.provide(Layer.merge(AuditRetention.Default, HistoryRetention.Default)))
)

/** The gateway, then the stage stream on its port (built after it: the stream takes over `upgrade`). */
const GatewayLive = Layer.merge(StageStreamLive, RecordGatewayPortLive).pipe(Layer.provideMerge(gatewayServerLayer(routes)))

/** What every component stands on: the process's actors, and its one LISTEN connection (an actor itself). */
const ProcessLive = Notifications.Default.pipe(Layer.provideMerge(ActorRegistry.Default))

export const AppLive = Layer.mergeAll(GatewayLive, ActorsLive).pipe(
  Layer.provideMerge(ServicesLive),
  Layer.provideMerge(ProcessLive),
  Layer.provideMerge(DatabaseLive),
  // Spans of every layer above go to OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  Layer.provide(Layer.merge(TracingLive, LoggingLive))
)
