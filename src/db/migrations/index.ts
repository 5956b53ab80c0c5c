/**
 * Numbered migrations, run in order by PgMigrator at start. Append a new file for every change;
 * never edit one that has shipped.
 */
import { Migrator } from "@effect/sql"
import foundation from "./0001_foundation.js"
import pipeline from "./0002_pipeline.js"
import policy from "./0003_policy.js"
import operations from "./0004_operations.js"
import agents from "./0005_agents.js"
import agentRuntime from "./0006_agent_runtime.js"
import escrow from "./0007_escrow.js"
import portfolioBreaches from "./0008_portfolio_breaches.js"
import autofundCap from "./0009_autofund_cap.js"
import x402Payments from "./0011_x402_payments.js"
import webhooks from "./0012_webhooks.js"
import positions from "./0014_positions.js"
import portfolioValues from "./0016_portfolio_values.js"
import transactionSignatures from "./0100_transaction_signatures.js"
import unresolvedTransactions from "./0101_unresolved_transactions.js"
import gaslessFeeQuota from "./0120_gasless_fee_quota.js"
import approvalQuorums from "./0121_approval_quorums.js"
import policyApprovalsRequired from "./0122_policy_approvals_required.js"
import signingFreezes from "./0140_signing_freezes.js"
import valueLimits from "./0141_value_limits.js"
import shadowPolicies from "./0142_shadow_policies.js"
import growth from "./0150_growth.js"
import apiKeys from "./0160_api_keys.js"
import sealedKeys from "./0161_sealed_keys.js"
import offChainOnce from "./0170_off_chain_once.js"
import webhookIdempotency from "./0180_webhook_idempotency.js"
import walletIdempotency from "./0181_wallet_idempotency.js"
import policyIdempotency from "./0182_policy_idempotency.js"
import agentIdempotency from "./0183_agent_idempotency.js"
import apiKeyIdempotency from "./0184_api_key_idempotency.js"

export const migrations = Migrator.fromRecord({
  "0001_foundation": foundation,
  "0002_pipeline": pipeline,
  "0003_policy": policy,
  "0004_operations": operations,
  "0005_agents": agents,
  "0006_agent_runtime": agentRuntime,
  "0007_escrow": escrow,
  "0008_portfolio_breaches": portfolioBreaches,
  "0009_autofund_cap": autofundCap,
  "0011_x402_payments": x402Payments,
  "0012_webhooks": webhooks,
  "0014_positions": positions,
  "0016_portfolio_values": portfolioValues,
  "0100_transaction_signatures": transactionSignatures,
  "0101_unresolved_transactions": unresolvedTransactions,
  "0120_gasless_fee_quota": gaslessFeeQuota,
  "0121_approval_quorums": approvalQuorums,
  "0122_policy_approvals_required": policyApprovalsRequired,
  "0140_signing_freezes": signingFreezes,
  "0141_value_limits": valueLimits,
  "0142_shadow_policies": shadowPolicies,
  "0150_growth": growth,
  "0160_api_keys": apiKeys,
  "0161_sealed_keys": sealedKeys,
  "0170_off_chain_once": offChainOnce,
  "0180_webhook_idempotency": webhookIdempotency,
  "0181_wallet_idempotency": walletIdempotency,
  "0182_policy_idempotency": policyIdempotency,
  "0183_agent_idempotency": agentIdempotency,
  "0184_api_key_idempotency": apiKeyIdempotency
})
