/**
 * An mpc node in another process (`npm run start:mpc-node`), called over HTTP with the shared
 * internal token (WALLET_MPC_INTERNAL_TOKEN). A node that refuses, does not answer in time or is
 * unreachable fails the call with a message naming the node; the coordinator treats it as down.
 */
import { bearer, INTERNAL_TOKEN_HEADER } from "../engine/internalToken.js"
import type { MpcNodeApi, MpcNodeOperation } from "./nodeApi.js"
import { fromWire, toWire } from "./nodeWire.js"

/** As the in-process actors: a node that has not answered in this time counts as down. */
const TIMEOUT_MS = 10_000

export const mpcNodePath = (operation: MpcNodeOperation) => `/internal/v1/mpc/${operation}`

export const remoteNodeApi = (index: number, baseUrl: string, token: string): MpcNodeApi => {
  const call = async (operation: MpcNodeOperation, args: ReadonlyArray<unknown>): Promise<any> => {
    let response: Response
    try {
      response = await fetch(new URL(mpcNodePath(operation), baseUrl), {
        method: "POST",
        headers: { "content-type": "application/json", [INTERNAL_TOKEN_HEADER]: bearer(token) },
        body: JSON.stringify({ args: toWire(args) }),
        signal: AbortSignal.timeout(TIMEOUT_MS)
      })
    } catch (error) {
      throw new Error(`mpc node ${index} is unreachable: ${error instanceof Error ? error.message : String(error)}`)
    }
    const json = (await response.json().catch(() => ({}))) as { result?: unknown; error?: string }
    if (!response.ok) throw new Error(`mpc node ${index} refused ${operation}: ${json.error ?? `HTTP ${response.status}`}`)
    return fromWire(json.result)
  }
  return {
    identity: () => call("identity", []),
    dkgRound1: (walletId) => call("dkgRound1", [walletId]),
    dkgRound2: (walletId, others, transportKeys) => call("dkgRound2", [walletId, others, transportKeys]),
    dkgRound3: (walletId, others, received, transportKeys) => call("dkgRound3", [walletId, others, received, transportKeys]),
    dkgAbort: async (walletId) => void (await call("dkgAbort", [walletId])),
    commit: (walletId, sessionId, share) => call("commit", [walletId, sessionId, share]),
    signShare: (walletId, sessionId, commitmentList, message, share) => call("signShare", [walletId, sessionId, commitmentList, message, share]),
    publicPackage: (walletId, share) => call("publicPackage", [walletId, share])
  }
}
