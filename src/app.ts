/**
 * The whole service as one layer: database, infrastructure, components, actors and the gateway. It
 * needs only AppConfig and ChainEndpoints, so main.ts and the tests compose it the same way.
 *
 * To add a component: export its routes (an array of `route(...)`) and add them to `routes`; add its
 * services to the list of its feature below (component-to-component dependencies go in the service's own
 * `dependencies`); add long-lived fibers (scoped layers using superviseActor) to `ActorsLive`.
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

/** Shared infrastructure every component may use from context. */
const InfrastructureLive = Layer.mergeAll(
  AuditLog.Default,
  SignatureLanding.Default.pipe(Layer.provideMerge(ChainClient.Default)),
  StageEventFeedLive.pipe(Layer.provideMerge(StageEvents.Default)),
  StageTelemetry.Default,
  ListeningPorts.Default
).pipe(Layer.provideMerge(MetricCounters.Default))

/** Policy, risk limits, wallets and their keys, webhooks and chaos: what the engine and the agents call. */
const CoreComponentsLive = Layer.mergeAll(
  // Policies and their engine, risk settings and value limits.
  PolicyEngine.Default, PolicyService.Default, RiskConfigRepo.Default, ValueLimitStore.Default,
  // Fault injection, audit events, protocol health and webhooks.
  Chaos.Default, AuditEvents.Default, ProtocolHealthCheck.Default, WebhookRepo.Default, WebhookDeliveryQueue.Default,
  // Wallets, their keys (sealed or MPC) and signing freezes.
  SigningFreezes.Default, WalletService.Default, WalletRepo.Default, KeyStore.Default, MpcCluster.Default
)

/** Our own programs and the oracle's freshness, the indexers of their accounts, and the positions read from them. */
const ProtocolsLive = Layer.mergeAll(
  EscrowProgram.Default, AmmPrograms.Default, LiquidStakingProgram.Default, LendingMarketProgram.Default, OracleFreshness.Default,
  EscrowRepo.Default, EscrowIndexer.Default, StakePositionIndexer.Default, LendingPositionIndexer.Default, WalletPositions.Default
)

/** The transaction engine: each stage's service brings what it calls (its `dependencies`). */
const TransactionEngineLive = Layer.mergeAll(
  // Intake, reads and waits of transactions, and the gate a frozen wallet closes.
  TransactionService.Default, TransactionRepo.Default, TransactionSummaries.Default, TransactionWaits.Default, ReadOnlyIntents.Default, FrozenGate.Default,
  // The outbox the pipeline workers drain, and its depth for the metrics.
  OutboxDepthLive.pipe(Layer.provideMerge(Outbox.Default)),
  // The executor and its stages up to the signature; every signing path simulates for the transaction's whole effect (issue 31).
  PipelineExecutor.Default, StageTransitions.Default, ChainFacts.Default, MessageBuilder.Default, EffectSimulation.Default,
  ApprovalGate.Default, WalletQuorums.Default, Signer.Default, SignOnly.Default, Submission.Default,
  // What the chain says settles every transaction whose bytes may have left (issue 30).
  Settlement.Default, PostChecks.Default,
  // Gasless submission through the relay and x402 payments: stages of the pipeline in their own files.
  GaslessStages.Default, X402Stages.Default
)

/**
 * What the transaction engine asks of the agents component (pipeline/agentPorts.ts), provided by it.
 * Treasury and paper trades are bookkeeping of the agents component that the pipeline performs, a
 * portfolio breach by an agent's spend is recorded for the supervisor, and a retry reserves the agent's
 * budget again.
 */
const AgentPortsLive = Layer.mergeAll(OffChainIntentsLive, AgentBreachReportLive, AgentBudgetOnRetryLive, AgentBudgetReleaseLive).pipe(
  Layer.provideMerge(Layer.mergeAll(Treasury.Default, Strategy.Default, AgentBreaches.Default, AgentBudgets.Default, AgentRepo.Default))
)

/** Component services: the transaction engine and the protocols on the core components. */
const ComponentsLive = Layer.mergeAll(TransactionEngineLive, ProtocolsLive).pipe(
  Layer.provideMerge(AgentPortsLive),
  Layer.provideMerge(CoreComponentsLive)
)

/** Issued API keys (issue 36): the service, and the gateway's key ring kept current by NOTIFY. */
const KeysLive = KeyRingLive.pipe(
  Layer.provideMerge(Layer.mergeAll(KeyService.Default, KeyUsage.Default, IssuedKeys.Default)),
  Layer.provideMerge(KeyAgentsLive)
)

/**
 * Agents core (issue #5): registry, manifests, and execute on top of the transaction engine (budgets,
 * treasury and strategy are provided with the transaction engine, which performs their bookkeeping).
 */
const AgentsLive = Layer.mergeAll(
  WalletSpendGateLive.pipe(Layer.provideMerge(WalletSpend.Default)),
  AgentExecution.Default,
  AgentService.Default,
  ManifestStore.Default
).pipe(Layer.provideMerge(KeysLive))

/** Agent runtime (issue #5): leases, durable run state, and actions through execute; its actors are below. */
const AgentRuntimeLive = Layer.mergeAll(ActionRunner.Default, AgentLeases.Default, AgentRunStore.Default, KillSwitch.Default, PolicyBacktests.Default).pipe(
  Layer.provideMerge(AgentsLive)
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
  Layer.provideMerge(AgentRuntimeLive),
  Layer.provideMerge(ComponentsLive),
  Layer.provideMerge(InfrastructureLive),
  Layer.provideMerge(ProcessLive),
  Layer.provideMerge(DatabaseLive),
  // Spans of every layer above go to OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  Layer.provide(Layer.merge(TracingLive, LoggingLive))
)
