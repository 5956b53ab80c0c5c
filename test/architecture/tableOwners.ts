/**
 * One owner per table (docs/decisions/table-owners.md): the component whose repository alone reads and
 * writes it. The owner is the component that creates the rows; every other component asks its service.
 */
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  wallets: "wallet",
  autofund_daily: "wallet",
  signing_freezes: "wallet",
  audit_events: "audit",
  metric_counters: "audit",
  transactions: "pipeline",
  outbox_jobs: "pipeline",
  transaction_signatures: "pipeline",
  unresolved_transactions: "pipeline",
  chaos_config: "pipeline",
  gasless_fee_reservations: "pipeline",
  wallet_approval_quorums: "pipeline",
  policies: "policy",
  policy_versions: "policy",
  policy_wallet_locks: "policy",
  policy_decisions: "policy",
  policy_daily_spend: "policy",
  policy_spend_entries: "policy",
  policy_rate_events: "policy",
  protocol_risk_configs: "risk",
  portfolio_risk_controls: "risk",
  portfolio_values: "risk",
  value_limits: "risk",
  value_reservations: "risk",
  agents: "agents",
  agent_budget_reservations: "agents",
  agent_manifests: "agents",
  agent_breaches: "agents",
  treasury_operations: "agents",
  backtest_runs: "agents",
  paper_trades: "agents",
  agent_leases: "agents",
  agent_runtime_state: "agents",
  agent_step_runs: "agents",
  agent_rule_runs: "agents",
  agent_actions: "agents",
  escrow_records: "protocols",
  x402_payments: "protocols",
  webhook_subscriptions: "webhooks",
  webhook_deliveries: "webhooks",
  positions: "positions",
  api_keys: "keys",
  sealed_keys: "wallet"
}

/**
 * The component each actor (actors/, the long-lived fibers) acts for, where an actor names a table in
 * SQL itself; an actor that starts to must be given one here.
 */
export const ACTOR_COMPONENTS: Readonly<Record<string, string>> = {}

/**
 * The owners' documented exceptions: ONE statement that must name another component's table, for
 * atomicity or because it is the hot path's shared statement. Each stays inside the owner's file named
 * here; a new statement elsewhere (or a new table here) fails the test.
 */
export const SHARED_STATEMENTS: ReadonlyArray<{ readonly file: string; readonly tables: ReadonlyArray<string>; readonly why: string }> = [
  {
    file: "src/pipeline/insertTransaction.ts",
    tables: ["wallets", "agents", "audit_events", "signing_freezes"],
    why: "the create path's one statement: checks the wallet and agent, inserts the row, its job and its audit event atomically (batched); a job claimed at the insert comes back with its run's context (wallet key; the risk bounds read by outbox.ts's riskBoundsOf), as a claim reads it"
  },
  {
    file: "src/pipeline/transactionRepo.ts",
    tables: ["audit_events"],
    why: "a stage transition and its audit row in one statement (batched), so the history and the audit never disagree"
  },
  {
    file: "src/pipeline/outbox.ts",
    tables: ["wallets", "protocol_risk_configs"],
    why: "the claim statement reads the job's row with its wallet key and delta threshold in one round trip (batched); riskBoundsOf is the one place a run's risk bounds are read, for the create's insert too"
  },
  {
    file: "src/policy/unconstrainedDecision.ts",
    tables: ["protocol_risk_configs", "portfolio_risk_controls", "value_limits", "audit_events"],
    why: "the fast path checks the wallet is unconstrained and records the decision with its audit event in one statement (batched)"
  },
  {
    file: "src/policy/whatIfSnapshot.ts",
    tables: ["wallets"],
    why: "POST /evaluate's one read-only snapshot statement (batched) instead of up to ten round trips"
  },
  {
    file: "src/pipeline/signer.ts",
    tables: ["wallets"],
    why: "the signer re-reads the rows it signs with their wallet's key reference and status in one batched statement"
  },
  {
    file: "src/wallet/engine/engineServer.ts",
    tables: ["transactions"],
    why: "the wallet engine (its own process, the isolation boundary) re-reads the recorded row itself, read only, before it signs"
  }
]

/**
 * Foreign statements not moved yet, each left for a named reason. The list only shrinks: the test fails
 * when an entry is no longer needed, so a fix also removes its entry.
 */
export const KNOWN_REMAINING: ReadonlyArray<{ readonly file: string; readonly tables: ReadonlyArray<string>; readonly why: string }> = []
