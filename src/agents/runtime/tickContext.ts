/**
 * The context a scheduler tick supplies (spec: Autonomy configuration): what the agent's conditions and
 * templates can name, and nothing they cannot. `tick`, `walletId` and the balance always (read through
 * JSON-RPC: fail closed, no balance, no tick); the tenant's other wallets only when a template names
 * `{{knownWallet0|1}}` or a condition `known_wallets_count`. Recent transactions, approvals, tokens and
 * policies are the agent's to read through the API: no condition or template reads them, and reading
 * them for every tick of 10,000 agents cost five statements and a JSON-RPC call each
 * (docs/decisions/agent-runtime.md). Agents never reach keys or signing.
 */
import { Effect } from "effect"
import type { Agent, Autonomy } from "../../../schemas/agent.js"
import { ChainClient } from "../../chain/chainClient.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import type { TickMetrics } from "./conditions.js"
import type { TemplateValues } from "./templates.js"

const MAX_KNOWN_WALLETS = 100

export interface KnownWallet {
  readonly walletId: string
  readonly publicKey: string
  readonly label: string | null
}

export interface TickContext {
  readonly tick: number
  readonly walletId: string
  /** The other active wallets of the agent's tenant, oldest first ({{knownWallet0}} is the first); empty unless the autonomy names them. */
  readonly knownWallets: ReadonlyArray<KnownWallet>
  readonly publicKey: string
  readonly balance: { readonly lamports: bigint }
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

/** Whether a template or condition of the autonomy names the tenant's other wallets. */
export const namesKnownWallets = (autonomy: Autonomy): boolean =>
  autonomy.rules.some((rule) => rule.when.some((condition) => condition.metric === "known_wallets_count")) ||
  JSON.stringify([autonomy.steps, autonomy.rules]).includes("{{knownWallet")

export class NoWallet {
  readonly _tag = "NoWallet"
  constructor(readonly message: string) {}
}

/** Builds the context of tick `tick` for an agent; fails when the wallet or its balance cannot be read. */
export const buildTickContext = (agent: Agent, tick: number) =>
  Effect.gen(function* () {
    const chain = yield* ChainClient
    const wallets = yield* WalletRepo
    const own = yield* wallets.findShared(agent.walletId)
    if (own === undefined) return yield* Effect.fail(new NoWallet(`wallet ${agent.walletId} of agent ${agent.id} not found`))
    const known = namesKnownWallets(agent.autonomy) ? yield* wallets.listActiveOthers(own.tenantId, agent.walletId, MAX_KNOWN_WALLETS) : []
    const lamports = yield* chain.getBalance(own.wallet.publicKey)
    const context: TickContext = { tick, walletId: agent.walletId, knownWallets: known, publicKey: own.wallet.publicKey, balance: { lamports } }
    return context
  })
