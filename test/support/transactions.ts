/**
 * Helpers for pipeline tests: funded wallets, submitting intents, and the one way to wait for a
 * transaction: `waitSettled` (stops at the approval gate too) or `waitTerminal` (only confirmed / failed).
 * They call through the typed client (test/support/client.ts): a settled answer's `data` is the decoded
 * transaction record (amounts as bigint), not `any`.
 */
import { randomUUID } from "node:crypto"
import type { Transaction } from "../../schemas/transaction.js"
import { type EndpointAnswer, type EndpointInput, makeClient } from "./client.js"
import { ADMIN_KEY } from "./service.js"
import { sleep } from "./wait.js"
import type { TransactionsApi } from "../../schemas/api/transactions.js"

const clientOf = (baseUrl: string, headers?: Record<string, string>) => makeClient(baseUrl, headers ?? { "x-api-key": ADMIN_KEY })

/**
 * Creates a wallet (funded on the ledger when `fundLamports` is given); throws unless it answers 201. Sent with an
 * idempotency key, and sent again with it after a 503, as the service asks ("retry shortly with the same
 * idempotencyKey"): a test that silenced the pool's connections leaves some for the next test to meet.
 */
export const createWallet = async (baseUrl: string, fundLamports?: number, headers?: Record<string, string>) => {
  const body = { idempotencyKey: randomUUID(), ...(fundLamports === undefined ? {} : { autoFund: true, fundLamports }) }
  let response = await clientOf(baseUrl, headers).wallets.create({ body })
  for (let again = 0; again < 5 && response.status === 503; again++) {
    await sleep(200)
    response = await clientOf(baseUrl, headers).wallets.create({ body })
  }
  if (response.status !== 201 || response.data === undefined) throw new Error(`wallet create failed: ${JSON.stringify(response.body)}`)
  return response.data
}

/** The answer of a create: the envelope, and `data` the decoded record when it carries one (undefined for a refusal). */
export type CreateAnswer = EndpointAnswer<typeof TransactionsApi.create>

/**
 * POST /transactions answering at once (`?waitMs=0`), as tests that follow a transaction by polling
 * expect; pass `query` (e.g. "?waitMs=10000", or "" for the service's default wait) to wait instead.
 * The body is any object: tests send refused bodies on purpose, so it is not held to the declared type.
 */
export const submit = (baseUrl: string, body: Record<string, unknown>, headers?: Record<string, string>, query = "?waitMs=0"): Promise<CreateAnswer> => {
  const waitMs = new URLSearchParams(query.replace(/^\?/, "")).get("waitMs")
  const input = { body, query: waitMs === null ? {} : { waitMs } } as unknown as EndpointInput<typeof TransactionsApi.create>
  return clientOf(baseUrl, headers).transactions.create(input)
}

/** A one-lamport transfer from a new wallet to itself, accepted (201) and not waited for: its id. */
export const acceptedSelfTransfer = async (baseUrl: string): Promise<string> => {
  const wallet = await createWallet(baseUrl)
  const created = await submit(baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: wallet.publicKey, lamports: 1 } })
  if (created.status !== 201) throw new Error(`transfer create failed: ${JSON.stringify(created.body)}`)
  return created.body.data.id as string
}

/** A transaction's answer that carries its record: `data` is the decoded transaction. */
export type SettledAnswer = EndpointAnswer<typeof TransactionsApi.get> & { readonly data: Transaction }

const SETTLED = new Set<string>(["confirmed", "failed", "approval_gate"])

/** Polls GET /transactions/<id> until it is settled (or the time is up); the answer's `data` is the decoded record. */
export const waitSettled = async (baseUrl: string, txId: string, timeoutMs = 30_000, headers?: Record<string, string>): Promise<SettledAnswer> => {
  const client = clientOf(baseUrl, headers)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await client.transactions.get({ params: { txId } })
    if (response.status !== 200 || response.data === undefined) {
      throw new Error(`polling ${txId} answered ${response.status}: ${JSON.stringify(response.body)}`)
    }
    if (SETTLED.has(response.data.status) || Date.now() > deadline) return response as SettledAnswer
    await sleep(50)
  }
}

/** Polls past the approval gate too (e.g. an approval-expiry test): only `confirmed` or `failed` end the wait. */
export const waitTerminal = async (baseUrl: string, txId: string, headers?: Record<string, string>): Promise<SettledAnswer> => {
  for (let i = 0; i < 600; i++) {
    const got = await waitSettled(baseUrl, txId, 60_000, headers)
    if (got.data.status !== "approval_gate") return got
    await sleep(50)
  }
  throw new Error(`${txId} never left the approval gate`)
}
