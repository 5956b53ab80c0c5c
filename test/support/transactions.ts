/**
 * Helpers for pipeline tests: funded wallets, submitting intents, and the one way to wait for a
 * transaction: `waitSettled` (stops at the approval gate too) or `waitTerminal` (only confirmed / failed).
 */
import { api } from "./service.js"
import { sleep } from "./wait.js"

export const createWallet = async (baseUrl: string, fundLamports?: number, headers?: Record<string, string>) => {
  const body = fundLamports === undefined ? {} : { autoFund: true, fundLamports }
  const response = await api<{ id: string; publicKey: string }>(baseUrl, "POST", "/api/v1/wallets", body, headers)
  if (response.status !== 201) throw new Error(`wallet create failed: ${JSON.stringify(response.body)}`)
  return response.body.data
}

/**
 * POST /transactions answering at once (`?waitMs=0`), as tests that follow a transaction by polling
 * expect; pass `query` (e.g. "?waitMs=10000", or "" for the service's default wait) to wait instead.
 */
export const submit = (baseUrl: string, body: Record<string, unknown>, headers?: Record<string, string>, query = "?waitMs=0") =>
  api(baseUrl, "POST", `/api/v1/transactions${query}`, body, headers)

const SETTLED = new Set(["confirmed", "failed", "approval_gate"])

/** Polls GET /transactions/<id> until it is settled (or the time is up). */
export const waitSettled = async (baseUrl: string, txId: string, timeoutMs = 30_000, headers?: Record<string, string>) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await api(baseUrl, "GET", `/api/v1/transactions/${txId}`, undefined, headers)
    if (response.status !== 200) throw new Error(`polling ${txId} answered ${response.status}: ${JSON.stringify(response.body)}`)
    if (SETTLED.has(response.body.data?.status) || Date.now() > deadline) return response
    await sleep(50)
  }
}

/** Polls past the approval gate too (e.g. an approval-expiry test): only `confirmed` or `failed` end the wait. */
export const waitTerminal = async (baseUrl: string, txId: string, headers?: Record<string, string>) => {
  for (let i = 0; i < 600; i++) {
    const got = await waitSettled(baseUrl, txId, 60_000, headers)
    if (got.body.data.status !== "approval_gate") return got
    await sleep(50)
  }
  throw new Error(`${txId} never left the approval gate`)
}
