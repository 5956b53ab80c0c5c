/** Helpers for pipeline tests: funded wallets, submitting intents, polling to a settled state. */
import { api } from "./service.js"

export const createWallet = async (baseUrl: string, fundLamports?: number, headers?: Record<string, string>) => {
  const body = fundLamports === undefined ? {} : { autoFund: true, fundLamports }
  const response = await api(baseUrl, "POST", "/api/v1/wallets", body, headers)
  if (response.status !== 201) throw new Error(`wallet create failed: ${JSON.stringify(response.body)}`)
  return response.body.data as { id: string; publicKey: string }
}

export const submit = (baseUrl: string, body: Record<string, unknown>, headers?: Record<string, string>, query = "") =>
  api(baseUrl, "POST", `/api/v1/transactions${query}`, body, headers)

const SETTLED = new Set(["confirmed", "failed", "approval_gate"])

/** Polls GET /transactions/<id> until it is settled (or the time is up). */
export const waitSettled = async (baseUrl: string, txId: string, timeoutMs = 30_000, headers?: Record<string, string>) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await api(baseUrl, "GET", `/api/v1/transactions/${txId}`, undefined, headers)
    if (response.status !== 200) throw new Error(`polling ${txId} answered ${response.status}: ${JSON.stringify(response.body)}`)
    if (SETTLED.has(response.body.data?.status) || Date.now() > deadline) return response
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
