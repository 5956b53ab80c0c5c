/** Transaction tools (spec: Tool interface, Transaction). */
import { Schema } from "effect"
import type { Endpoint } from "../../../schemas/api/endpoint.js"
import { EscrowApi } from "../../../schemas/api/escrow.js"
import { TransactionsApi } from "../../../schemas/api/transactions.js"
import { AgentId, IdempotencyKeyArg, Intent, Limit, Offset, ProtocolName, TransactionType, TxId, WalletId } from "../args.js"
import { apiPath, omit, tool } from "../toolDefinition.js"

const byTx = Schema.Struct({ txId: TxId })
const byWallet = Schema.Struct({ walletId: WalletId })
const WaitMs = Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.between(0, 30_000, { message: () => "must be between 0 and 30000" })).annotations({
  description: "wait up to this many ms for the transaction to settle (confirmed, failed or at the approval gate)"
})

const txAction = (name: string, action: string, endpoint: Endpoint, description: string, destructive: boolean) =>
  tool({
    name,
    description,
    endpoint,
    args: byTx,
    readOnly: false,
    destructive,
    request: ({ txId }) => ({ method: "POST", path: apiPath`/api/v1/transactions/${txId}/` + action })
  })

export const transactionTools = [
  tool({
    name: "tx.create",
    description: "Submit an intent (e.g. type transfer_sol, protocol system-program, intent {destination, lamports}); it runs the pipeline with policy. Poll tx.get until confirmed or failed. Give an idempotencyKey (one per intended payment) and use the same one if you call again after an error or a timeout: the first transaction is answered, nothing is paid twice.",
    endpoint: TransactionsApi.create,
    args: Schema.Struct({
      walletId: WalletId,
      type: TransactionType,
      protocol: ProtocolName,
      intent: Intent,
      agentId: Schema.optional(AgentId),
      gasless: Schema.optional(Schema.Boolean),
      idempotencyKey: Schema.optional(IdempotencyKeyArg),
      requireApproval: Schema.optional(Schema.Boolean),
      waitMs: Schema.optional(WaitMs)
    }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: "/api/v1/transactions", query: { waitMs: args.waitMs }, body: omit(args, "waitMs") })
  }),
  tool({
    name: "tx.get",
    description: "Read a transaction: status, stage, signature, policy decision, history.",
    endpoint: TransactionsApi.get,
    args: byTx,
    readOnly: true,
    request: ({ txId }) => ({ method: "GET", path: apiPath`/api/v1/transactions/${txId}` })
  }),
  txAction("tx.retry", "retry", TransactionsApi.retry, "Retry a failed transaction (PIPELINE_ERROR or CONFIRMATION_FAILED) with a fresh build and policy decision.", true),
  tool({
    name: "tx.approve",
    description:
      "Approve a transaction waiting at the approval gate (read its approval.preview first: what it does, the wallet's balance changes, who receives value). " +
      "Pass the previewHash you judged: if the preview changed since, the approval is refused (409). Built again before signing, it is signed only while its effect equals that preview.",
    endpoint: TransactionsApi.approve,
    args: Schema.Struct({ txId: TxId, previewHash: Schema.optional(Schema.String) }),
    readOnly: false,
    destructive: true,
    request: ({ txId, previewHash }) => ({ method: "POST", path: apiPath`/api/v1/transactions/${txId}/approve`, body: previewHash === undefined ? {} : { previewHash } })
  }),
  tool({
    name: "tx.reject",
    description: "Reject a transaction waiting at the approval gate; it fails and is never signed.",
    endpoint: TransactionsApi.reject,
    args: Schema.Struct({ txId: TxId, reason: Schema.optional(Schema.String) }),
    readOnly: false,
    destructive: true,
    request: ({ txId, reason }) => ({ method: "POST", path: apiPath`/api/v1/transactions/${txId}/reject`, body: reason === undefined ? {} : { reason } })
  }),
  tool({
    name: "tx.proof",
    description: "The execution proof of a settled transaction (hashes of request, decision, simulation, signed bytes).",
    endpoint: TransactionsApi.proof,
    args: byTx,
    readOnly: true,
    request: ({ txId }) => ({ method: "GET", path: apiPath`/api/v1/transactions/${txId}/proof` })
  }),
  tool({
    name: "tx.replay",
    description: "Everything recorded about a transaction: request, policy decision, simulation, proof, history.",
    endpoint: TransactionsApi.replay,
    args: byTx,
    readOnly: true,
    request: ({ txId }) => ({ method: "GET", path: apiPath`/api/v1/transactions/${txId}/replay` })
  }),
  tool({
    name: "tx.list_by_wallet",
    description: "A wallet's transactions, newest first.",
    endpoint: TransactionsApi.listByWallet,
    args: Schema.Struct({ walletId: WalletId, status: Schema.optional(Schema.String), limit: Schema.optional(Limit), offset: Schema.optional(Offset) }),
    readOnly: true,
    request: ({ walletId, ...query }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}/transactions`, query })
  }),
  tool({
    name: "tx.pending_approvals",
    description: "A wallet's transactions waiting at the approval gate.",
    endpoint: TransactionsApi.pendingApprovals,
    args: byWallet,
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}/pending-approvals` })
  }),
  tool({
    name: "tx.positions",
    description: "A wallet's positions (native SOL, tokens, stake and escrow positions, with value), read by a query_positions intent (read-only: no policy, no signing).",
    endpoint: TransactionsApi.create,
    args: byWallet,
    readOnly: true,
    request: ({ walletId }) => ({
      method: "POST",
      path: "/api/v1/transactions",
      query: { waitMs: 10_000 },
      body: { walletId, type: "query_positions", protocol: "system-program", intent: {} }
    })
  }),
  tool({
    name: "tx.escrows",
    description: "A wallet's escrow records.",
    endpoint: EscrowApi.listByWallet,
    args: byWallet,
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}/escrows` })
  })
]
