/**
 * The context each scheduler tick supplies (spec: Autonomy configuration): tick, walletId,
 * knownWallets, meta, balance, tokens, recentTransactions, openApprovals, protocolPositions,
 * escrowSummary, policySummary. Read through JSON-RPC (balance, tokens) and the owners' repositories
 * (wallets, transactions, policies); agents never reach keys or signing. The balance must be read (fail closed: no balance, no tick);
 * tokens are informational and read best effort.
 */
import { Effect } from "effect"
import type { Agent } from "../../../schemas/agent.js"
import { ChainClient } from "../../chain/chainClient.js"
import { TransactionSummaries } from "../../pipeline/transactionSummaries.js"
import { PolicyRepo } from "../../policy/policyRepo.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import type { TickMetrics } from "./conditions.js"
import type { TemplateValues } from "./templates.js"

const RECENT_TRANSACTIONS = 10
const MAX_KNOWN_WALLETS = 100

export interface KnownWallet {
  readonly walletId: string
  readonly publicKey: string
  readonly label: string | null
}

export interface TickContext {
  readonly tick: number
  readonly walletId: string
  /** The other active wallets of the agent's tenant, oldest first ({{knownWallet0}} is the first). */
  readonly knownWallets: ReadonlyArray<KnownWallet>
  readonly meta: {
    readonly agentId: string
    readonly agentName: string
    readonly executionMode: Agent["executionMode"]
    readonly mode: Agent["autonomy"]["mode"]
    readonly publicKey: string
    readonly at: string
  }
  readonly balance: { readonly lamports: bigint }
  readonly tokens: ReadonlyArray<{ readonly mint: string; readonly amount: string; readonly decimals: number; readonly tokenAccount: string }>
  readonly recentTransactions: ReadonlyArray<{ readonly id: string; readonly type: string; readonly status: string; readonly createdAt: string }>
  readonly openApprovals: ReadonlyArray<{ readonly txId: string; readonly type: string; readonly createdAt: string }>
  /** Positions are not indexed yet by the pipeline: always empty for now. */
  readonly protocolPositions: ReadonlyArray<never>
  /** Escrow records are not indexed yet: counts stay zero for now. */
  readonly escrowSummary: { readonly open: number }
  readonly policySummary: { readonly activePolicies: number; readonly ruleTypes: ReadonlyArray<string> }
}

export const tickMetrics = (context: TickContext): TickMetrics => ({
  tick: context.tick,
  balanceLamports: context.balance.lamports,
  knownWalletsCount: context.knownWallets.length
})

export const templateValues = (context: TickContext): TemplateValues => ({
  tick: context.tick,
  walletId: context.walletId,
  balanceLamports: context.balance.lamports,
  knownWalletAddresses: context.knownWallets.map((wallet) => wallet.publicKey)
})

const iso = (value: Date | string) => new Date(value).toISOString()

/** The distinct `type`s of the rules of the active policies (rules are stored as a JSON array). */
const ruleTypesOf = (rulesTexts: ReadonlyArray<string>): ReadonlyArray<string> => {
  const types = new Set<string>()
  for (const text of rulesTexts) {
    const rules: unknown = JSON.parse(text)
    if (!Array.isArray(rules)) continue
    for (const rule of rules) {
      if (typeof rule === "object" && rule !== null && "type" in rule && typeof rule.type === "string") types.add(rule.type)
    }
  }
  return [...types].sort()
}

export class NoWallet {
  readonly _tag = "NoWallet"
  constructor(readonly message: string) {}
}

/** Builds the context of tick `tick` for an agent; fails when the wallet or its balance cannot be read. */
export const buildTickContext = (agent: Agent, tick: number, nowMs: number) =>
  Effect.gen(function* () {
    const chain = yield* ChainClient
    const wallets = yield* WalletRepo
    const transactions = yield* TransactionSummaries
    const own = yield* wallets.find(agent.walletId, null)
    if (own === undefined) return yield* Effect.fail(new NoWallet(`wallet ${agent.walletId} of agent ${agent.id} not found`))
    const { tenantId } = own
    const publicKey = own.wallet.publicKey
    const known = yield* wallets.listActiveOthers(tenantId, agent.walletId, MAX_KNOWN_WALLETS)
    const recent = yield* transactions.recentOfWallet(agent.walletId, RECENT_TRANSACTIONS)
    const approvals = yield* transactions.awaitingApprovalOfWallet(agent.walletId)
    const policies = yield* (yield* PolicyRepo).activeForWallet(agent.walletId, tenantId).pipe(Effect.orDie)
    const lamports = yield* chain.getBalance(publicKey)
    const tokens = yield* chain.tokenAccounts(publicKey).pipe(
      Effect.map((accounts) => accounts.map(({ mint, amount, decimals, tokenAccount }) => ({ mint, amount, decimals, tokenAccount }))),
      Effect.orElseSucceed(() => [])
    )
    const context: TickContext = {
      tick,
      walletId: agent.walletId,
      knownWallets: known,
      meta: { agentId: agent.id, agentName: agent.name, executionMode: agent.executionMode, mode: agent.autonomy.mode, publicKey, at: new Date(nowMs).toISOString() },
      balance: { lamports },
      tokens,
      recentTransactions: recent.map((row) => ({ id: row.id, type: row.type, status: row.status, createdAt: iso(row.createdAt) })),
      openApprovals: approvals.map((row) => ({ txId: row.id, type: row.type, createdAt: iso(row.createdAt) })),
      protocolPositions: [],
      escrowSummary: { open: 0 },
      policySummary: { activePolicies: policies.length, ruleTypes: ruleTypesOf(policies.map((row) => row.rulesText)) }
    }
    return context
  })
