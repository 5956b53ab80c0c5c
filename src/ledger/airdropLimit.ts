/**
 * The local ledger's faucet is bounded: at most MAX_AIRDROP_LAMPORTS (1,000 SOL) per requestAirdrop and
 * AIRDROP_WINDOW_LAMPORTS (100,000 SOL) per minute in all, so no caller (the service's auto-funding
 * included) can mint unbounded SOL; a refusal is the faucet's own rate-limit error.
 */
import { InvalidParamsError, RpcError } from "./jsonRpc.js"

export const MAX_AIRDROP_LAMPORTS = 1_000_000_000_000n
export const AIRDROP_WINDOW_LAMPORTS = 100_000_000_000_000n
const WINDOW_MS = 60_000

export const makeAirdropLimit = (now: () => number = Date.now) => {
  let windowStart = now()
  let given = 0n

  /** Throws the RPC error for an airdrop beyond a bound; otherwise counts it. */
  const admit = (lamports: bigint) => {
    if (lamports > MAX_AIRDROP_LAMPORTS) {
      throw new InvalidParamsError(`Invalid params: lamports must be at most ${MAX_AIRDROP_LAMPORTS} per airdrop`)
    }
    if (now() - windowStart >= WINDOW_MS) {
      windowStart = now()
      given = 0n
    }
    if (given + lamports > AIRDROP_WINDOW_LAMPORTS) {
      throw new RpcError(-32600, "airdrop request failed. This can happen when the rate limit is reached.")
    }
    given += lamports
  }

  /** Gives back what an airdrop that then failed had counted. */
  const refund = (lamports: bigint) => {
    given = given >= lamports ? given - lamports : 0n
  }

  return { admit, refund }
}
