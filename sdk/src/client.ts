/**
 * The client: one object per key, with the service's resources as methods. Every intent is typed by its type
 * (a wrong field does not compile: `TransactionRequest`), every answer by its route's schema (generated.ts).
 *
 *   const custody = new CustodyClient({ baseUrl: "http://127.0.0.1:3000", apiKey })
 *   const tx = await custody.transactions.createAndWait({
 *     walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 }
 *   })
 */
import type { Envelope, Page } from "./envelope.js"
import { CustodyError, retryGuidance } from "./errors.js"
import type {
  Agent,
  AgentBudget,
  Allocation,
  Balance,
  CreatedWallet,
  ExecutionProof,
  IntentPayloads,
  Policy,
  PolicyDecision,
  PolicyRule,
  Pools,
  ProtocolId,
  Rebalance,
  SwapQuote,
  TokenBalances,
  Transaction,
  TransactionType,
  Wallet,
  Webhook,
  WebhookDelivery,
  WebhookEventType,
  WebhookWithSecret
} from "./generated.js"
import { type RequestOptions, Transport, type TransportOptions } from "./http.js"
import { openStageStream, type StageFilter, type StageStream, type StreamGap, type WebSocketClass } from "./stream.js"

/**
 * A transaction request of intent type `T`: its payload is checked against that type's fields (a misspelt or
 * foreign field does not compile). The methods infer `T` from `type`; a variable can name it,
 * `TransactionRequest<"transfer_sol">`. Without `T`, the union of every type's request.
 */
export type TransactionRequest<T extends TransactionType = TransactionType> = T extends TransactionType
  ? {
      readonly walletId: string
      readonly type: T
      readonly protocol: ProtocolId
      readonly intent: IntentPayloads[T]
      readonly agentId?: string
      readonly gasless?: boolean
      /** Set by the client when absent, so a retried create can never create twice. */
      readonly idempotencyKey?: string
      /** Stop at the approval gate even when policy allows. */
      readonly requireApproval?: boolean
    }
  : never

/** What an agent executes: a request without the wallet (the agent's own). */
export type AgentOrder<T extends TransactionType = TransactionType> = T extends TransactionType
  ? {
      readonly type: T
      readonly protocol: ProtocolId
      readonly intent?: IntentPayloads[T]
      readonly gasless?: boolean
      readonly idempotencyKey?: string
    }
  : never

export interface ClientOptions extends TransportOptions {
  /** For the stage stream where the runtime has no global WebSocket and `ws` is not installed. */
  readonly WebSocket?: WebSocketClass
}

export interface WaitOptions {
  /** How long to wait for the outcome in all (default 60 s). */
  readonly timeoutMs?: number
  /** Between reads once the service's own wait (up to 30 s) is over (default 500 ms). */
  readonly pollIntervalMs?: number
  /** Return at the approval gate (it waits for a human): default true. False waits on through it. */
  readonly returnAtApprovalGate?: boolean
  /** CONFIRMATION_FAILED may use the retry endpoint (spec): how many times (default 1). */
  readonly confirmationRetries?: number
}

const TERMINAL = new Set(["confirmed", "failed"])

/** Confirmed or failed: nothing more will happen to it. */
export const isSettled = (tx: Pick<Transaction, "status">) => TERMINAL.has(tx.status)

const isRecord = (data: unknown): data is Transaction =>
  typeof data === "object" && data !== null && "id" in data && "status" in data && "walletId" in data

/**
 * A write that is safe to send again: the body with its idempotency key (the caller's, else a new one), and
 * `idempotent` so the transport sends it again after a lost answer; the service answers a repeat with the first.
 */
const keyed = <B extends { readonly idempotencyKey?: string }>(body: B) =>
  ({ body: { ...body, idempotencyKey: body.idempotencyKey ?? globalThis.crypto.randomUUID() }, idempotent: true }) as const

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const path = (strings: TemplateStringsArray, ...params: ReadonlyArray<string | number>) =>
  strings.reduce((out, part, index) => out + part + (index < params.length ? encodeURIComponent(String(params[index])) : ""), "")

export class CustodyClient {
  readonly transport: Transport
  private readonly webSocket: WebSocketClass | undefined

  constructor(options: ClientOptions) {
    this.transport = new Transport(options)
    this.webSocket = options.WebSocket
  }

  /**
   * A transaction's answer: its record also when the envelope says failure (a failed transaction is a record
   * the caller asked for: status `failed`, with errorCode and failedAt); any other failure throws.
   */
  private async record(method: string, route: string, options: RequestOptions = {}): Promise<Transaction> {
    const { httpStatus, envelope } = await this.transport.request<unknown>(method, route, options)
    if (isRecord(envelope.data)) return envelope.data
    throw new CustodyError(httpStatus, envelope as Envelope<unknown>)
  }

  /** `GET /health` (no key needed). */
  health(): Promise<{ readonly status: string; readonly service?: string }> {
    return this.transport.data("GET", "/health")
  }

  readonly wallets = {
    /** Creates a wallet; sent again after a lost answer with its idempotency key, it answers the one wallet made (funded once). */
    create: (body: { readonly label?: string; readonly autoFund?: boolean; readonly fundLamports?: number; readonly idempotencyKey?: string } = {}): Promise<CreatedWallet> =>
      this.transport.data("POST", "/api/v1/wallets", keyed(body)),
    get: (walletId: string): Promise<Wallet> => this.transport.data("GET", path`/api/v1/wallets/${walletId}`),
    list: (query: { readonly limit?: number; readonly offset?: number; readonly publicKey?: string } = {}): Promise<Page<"wallets", Wallet>> =>
      this.transport.data("GET", "/api/v1/wallets", { query }),
    balance: (walletId: string): Promise<Balance> => this.transport.data("GET", path`/api/v1/wallets/${walletId}/balance`),
    tokens: (walletId: string): Promise<TokenBalances> => this.transport.data("GET", path`/api/v1/wallets/${walletId}/tokens`)
  }

  /**
   * Treasury: budget moved between agents (bookkeeping; no lamports move on chain). Each move carries an
   * idempotency key (one is made when you give none), so a move sent again after a lost answer is answered
   * with the first one and never moves twice.
   */
  readonly treasury = {
    allocate: (body: {
      readonly targetAgentId: string
      readonly lamports: number | string
      readonly sourceAgentId?: string
      readonly reason?: string
      readonly idempotencyKey?: string
    }): Promise<Allocation> =>
      this.transport.data("POST", "/api/v1/treasury/allocate", keyed(body)),
    rebalance: (body: {
      readonly sourceAgentId: string
      readonly targetAgentId: string
      readonly lamports: number | string
      readonly reason?: string
      readonly idempotencyKey?: string
    }): Promise<Rebalance> =>
      this.transport.data("POST", "/api/v1/treasury/rebalance", keyed(body))
  }

  /** Market data (no transaction): pools and quotes. A swap itself is a `swap` intent of transactions.create. */
  readonly defi = {
    pools: (): Promise<Pools> => this.transport.data("GET", "/api/v1/defi/pools"),
    quote: (body: {
      readonly protocol: "dex-aggregator" | "amm-one" | "amm-two"
      readonly inputMint: string
      readonly outputMint: string
      readonly amount: string
      readonly wallet: string
      readonly slippageBps?: number
    }): Promise<SwapQuote> => this.transport.data("POST", "/api/v1/defi/quote", { body })
  }

  readonly transactions = {
    /**
     * Submits an intent. The answer is the record as it stands when the service stops waiting (`waitMs`, 0-30000):
     * confirmed, failed, at the approval gate or still running.
     */
    create: <T extends TransactionType>(request: TransactionRequest<T>, options: { readonly waitMs?: number } = {}): Promise<Transaction> =>
      this.record("POST", "/api/v1/transactions", { ...keyed(request), query: { waitMs: options.waitMs } }),
    /** Submits an intent and waits for its outcome: confirmed, failed, or (by default) the approval gate. */
    createAndWait: async <T extends TransactionType>(request: TransactionRequest<T>, options: WaitOptions = {}): Promise<Transaction> => {
      const timeoutMs = options.timeoutMs ?? 60_000
      const created = await this.transactions.create(request, { waitMs: Math.min(timeoutMs, 30_000) })
      return this.transactions.wait(created.id, options, created)
    },
    /** Reads a transaction until it settles (or reaches the approval gate, by default). */
    wait: async (txId: string, options: WaitOptions = {}, known?: Transaction): Promise<Transaction> => {
      const deadline = Date.now() + (options.timeoutMs ?? 60_000)
      const atGate = options.returnAtApprovalGate ?? true
      let retries = options.confirmationRetries ?? 1
      let tx = known ?? (await this.transactions.get(txId))
      for (;;) {
        if (tx.status === "failed" && retries > 0 && retryGuidance(tx.errorCode) === "use-retry-endpoint") {
          retries--
          tx = await this.transactions.retry(tx.id, tx)
          continue
        }
        if (isSettled(tx) || (atGate && tx.status === "approval_gate")) return tx
        if (Date.now() >= deadline) return tx
        await sleep(options.pollIntervalMs ?? 500)
        tx = await this.transactions.get(tx.id)
      }
    },
    get: (txId: string): Promise<Transaction> => this.record("GET", path`/api/v1/transactions/${txId}`),
    /**
     * Approves the transaction. With `previewHash` (the `approval.previewHash` of the preview the approver saw)
     * it approves only that preview (409 if it changed) and is sent again after a lost answer or a 503: the
     * service answers a repeated approve by the same key with the transaction as it stands. Without it the
     * current preview is approved and the request is not repeated (the preview may have changed meanwhile).
     */
    approve: (txId: string, options: { readonly previewHash?: string | undefined } = {}): Promise<Transaction> =>
      options.previewHash === undefined
        ? this.record("POST", path`/api/v1/transactions/${txId}/approve`)
        : this.record("POST", path`/api/v1/transactions/${txId}/approve`, { body: { previewHash: options.previewHash }, idempotent: true }),
    /** Rejects it; sent again after a lost answer (a repeated reject by the key that rejected answers the failed transaction). */
    reject: (txId: string, reason?: string): Promise<Transaction> =>
      this.record("POST", path`/api/v1/transactions/${txId}/reject`, { body: reason === undefined ? {} : { reason }, idempotent: true }),
    /**
     * A fresh attempt of a failed transaction (CONFIRMATION_FAILED, PIPELINE_ERROR). Sent again after a lost
     * answer only when a read shows the service did not take it (the transaction still failed, unchanged since):
     * a blind repeat could start one more attempt than was asked for.
     */
    retry: async (txId: string, known?: Transaction): Promise<Transaction> => {
      const before = known ?? (await this.transactions.get(txId))
      return this.transport.sendOnce(
        () => this.record("POST", path`/api/v1/transactions/${txId}/retry`),
        async () => {
          const now = await this.transactions.get(txId)
          return now.status !== "failed" || now.updatedAt !== before.updatedAt ? now : undefined
        }
      )
    },
    proof: (txId: string): Promise<ExecutionProof> => this.transport.data("GET", path`/api/v1/transactions/${txId}/proof`),
    listByWallet: (
      walletId: string,
      query: { readonly status?: Transaction["status"]; readonly limit?: number; readonly offset?: number } = {}
    ): Promise<Page<"transactions", Transaction>> => this.transport.data("GET", path`/api/v1/wallets/${walletId}/transactions`, { query }),
    pendingApprovals: (walletId: string, query: { readonly limit?: number; readonly offset?: number } = {}): Promise<Page<"transactions", Transaction>> =>
      this.transport.data("GET", path`/api/v1/wallets/${walletId}/pending-approvals`, { query })
  }

  readonly policies = {
    /** Creates a policy; sent again after a lost answer with its idempotency key, it answers the one policy made. */
    create: (body: { readonly walletId: string; readonly name: string; readonly rules: ReadonlyArray<PolicyRule>; readonly active?: boolean; readonly idempotencyKey?: string }): Promise<Policy> =>
      this.transport.data("POST", "/api/v1/policies", keyed(body)),
    get: (policyId: string): Promise<Policy> => this.transport.data("GET", path`/api/v1/policies/${policyId}`),
    update: (policyId: string, body: { readonly name?: string; readonly rules?: ReadonlyArray<PolicyRule>; readonly active?: boolean }): Promise<Policy> =>
      this.transport.data("PUT", path`/api/v1/policies/${policyId}`, { body }),
    list: (query: { readonly walletId?: string; readonly active?: boolean; readonly limit?: number; readonly offset?: number } = {}): Promise<Page<"policies", Policy>> =>
      this.transport.data("GET", "/api/v1/policies", { query }),
    listByWallet: (walletId: string): Promise<Page<"policies", Policy>> => this.transport.data("GET", path`/api/v1/wallets/${walletId}/policies`),
    evaluate: (body: {
      readonly walletId: string
      readonly type: TransactionType
      readonly protocol: ProtocolId
      readonly destination?: string
      readonly tokenMint?: string
      readonly amountLamports?: number | string
      readonly programIds?: ReadonlyArray<string>
      readonly slippageBps?: number
    }): Promise<PolicyDecision> => this.transport.data("POST", "/api/v1/evaluate", { body })
  }

  /**
   * Webhook subscriptions: events delivered to your URL, signed the Standard Webhooks way with the secret that
   * create and rotateSecret answer. A create carries an idempotency key (one is made when you give none): sent
   * again after a lost answer it answers the one subscription and its secret. A rotate is sent again too (the
   * secret a lost answer carried was seen by no one; the last answer's is the one in force).
   */
  readonly webhooks = {
    create: (body: { readonly url: string; readonly eventTypes: ReadonlyArray<WebhookEventType>; readonly description?: string; readonly idempotencyKey?: string }): Promise<WebhookWithSecret> =>
      this.transport.data("POST", "/api/v1/webhooks", keyed(body)),
    list: (query: { readonly limit?: number; readonly offset?: number } = {}): Promise<Page<"webhooks", Webhook>> =>
      this.transport.data("GET", "/api/v1/webhooks", { query }),
    get: (webhookId: string): Promise<Webhook> => this.transport.data("GET", path`/api/v1/webhooks/${webhookId}`),
    /**
     * Deletes a subscription. After a lost answer it is not sent blindly again (a repeat would answer 404 for what
     * the first deleted): a read tells, gone meaning deleted, still there meaning send it again.
     */
    delete: (webhookId: string): Promise<{ readonly id: string; readonly deleted: true }> => {
      const route = path`/api/v1/webhooks/${webhookId}`
      return this.transport.sendOnce(
        () => this.transport.data<{ readonly id: string; readonly deleted: true }>("DELETE", route, { idempotent: false }),
        () =>
          this.transport.data<Webhook>("GET", route).then(
            () => undefined,
            (error: unknown) => (error instanceof CustodyError && error.httpStatus === 404 ? { id: webhookId, deleted: true as const } : Promise.reject(error))
          )
      )
    },
    rotateSecret: (webhookId: string): Promise<WebhookWithSecret> =>
      this.transport.data("POST", path`/api/v1/webhooks/${webhookId}/rotate-secret`, { idempotent: true }),
    deliveries: (webhookId: string, query: { readonly status?: WebhookDelivery["status"]; readonly limit?: number; readonly offset?: number } = {}): Promise<Page<"deliveries", WebhookDelivery>> =>
      this.transport.data("GET", path`/api/v1/webhooks/${webhookId}/deliveries`, { query }),
    /** Queues a dead delivery again (not resent after a lost answer: read `deliveries` to see whether it was taken). */
    redeliver: (webhookId: string, deliveryId: string): Promise<{ readonly id: string; readonly status: "pending" }> =>
      this.transport.data("POST", path`/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`)
  }

  readonly agents = {
    /** Registers an agent; sent again after a lost answer with its idempotency key, it answers the one agent made. */
    create: (body: {
      readonly name: string
      readonly walletId?: string
      readonly executionMode?: "autonomous" | "supervised"
      readonly allowedIntents?: ReadonlyArray<TransactionType>
      readonly allowedProtocols?: ReadonlyArray<ProtocolId>
      readonly budgetLamports?: number | string
      readonly idempotencyKey?: string
    }): Promise<Agent> => this.transport.data("POST", "/api/v1/agents", keyed(body)),
    get: (agentId: string): Promise<Agent> => this.transport.data("GET", path`/api/v1/agents/${agentId}`),
    list: (): Promise<{ readonly agents: ReadonlyArray<Agent> }> => this.transport.data("GET", "/api/v1/agents"),
    start: (agentId: string): Promise<Agent> => this.transport.data("POST", path`/api/v1/agents/${agentId}/start`),
    stop: (agentId: string): Promise<Agent> => this.transport.data("POST", path`/api/v1/agents/${agentId}/stop`),
    pause: (agentId: string, reason?: string): Promise<Agent> =>
      this.transport.data("POST", path`/api/v1/agents/${agentId}/pause`, { body: reason === undefined ? {} : { reason } }),
    resume: (agentId: string): Promise<Agent> => this.transport.data("POST", path`/api/v1/agents/${agentId}/resume`),
    budget: (agentId: string): Promise<AgentBudget> => this.transport.data("GET", path`/api/v1/agents/${agentId}/budget`),
    /** An intent on the agent's behalf: its allowlists, manifest and budget, then the pipeline with policy. */
    execute: <T extends TransactionType>(agentId: string, order: AgentOrder<T>, options: { readonly waitMs?: number } = {}): Promise<Transaction> =>
      this.record("POST", path`/api/v1/agents/${agentId}/execute`, { ...keyed(order), query: { waitMs: options.waitMs } })
  }

  /**
   * The stage stream of the transactions, wallets or agents named (none: every event this key may see). `onGap`
   * is called when events may have been missed (stream.ts); named transactions then come with their current state.
   */
  stream(filter: StageFilter = {}, options: { readonly onGap?: (gap: StreamGap) => void } = {}): Promise<StageStream> {
    return openStageStream({
      baseUrl: this.transport.baseUrl,
      headers: this.transport.headers(),
      filter,
      ...(this.webSocket === undefined ? {} : { WebSocket: this.webSocket }),
      ...(options.onGap === undefined ? {} : { onGap: options.onGap })
    })
  }
}
