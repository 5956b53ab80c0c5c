/**
 * The local ledger's oracle: Pyth PriceUpdateV2 accounts (owned by the Pyth receiver program, at the push
 * oracle's shard-0 addresses) seeded for the test mints, and `setPythPriceUpdate` so an operator moves a price
 * (through the service's PUT /api/v1/oracle/prices). A local-ledger method, like requestAirdrop: a real cluster's
 * prices come from Pyth's own posting.
 */
import { address, lamports } from "@solana/kit"
import type { LiteSVM } from "litesvm"
import { SEED_AUTHORITY } from "../protocols/amm/localPools.js"
import { FEEDS } from "../protocols/oracle/feeds.js"
import { encodePriceUpdate, feedAccountAddress, PRICE_UPDATE_V2_SIZE, PYTH_RECEIVER_PROGRAM_ID } from "../protocols/oracle/priceUpdate.js"
import { InvalidParamsError, requireString, type RpcHandler } from "./jsonRpc.js"
import type { Ledger } from "./ledger.js"

export const writePriceUpdate = (svm: LiteSVM, feedId: string, price: bigint, exponent: number, slot: bigint): string => {
  const key = feedAccountAddress(feedId)
  const data = encodePriceUpdate(
    { feedId, price, conf: price / 1000n, exponent, publishTime: BigInt(Math.floor(Date.now() / 1000)), postedSlot: slot },
    SEED_AUTHORITY.publicKey
  )
  svm.setAccount({
    address: address(key.toBase58()),
    data,
    executable: false,
    lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(PRICE_UPDATE_V2_SIZE))),
    programAddress: address(PYTH_RECEIVER_PROGRAM_ID.toBase58()),
    space: BigInt(PRICE_UPDATE_V2_SIZE)
  })
  return key.toBase58()
}

/** Seeds every known feed that has no account yet. */
export const seedPriceFeeds = (svm: LiteSVM): void => {
  for (const feed of FEEDS) {
    if (!svm.getAccount(address(feedAccountAddress(feed.feedId).toBase58())).exists) writePriceUpdate(svm, feed.feedId, feed.seedPrice, feed.seedExponent, 0n)
  }
}

export function oracleMethods(ledger: Ledger): Array<[string, RpcHandler]> {
  return [
    ["setPythPriceUpdate", (params) => {
      const feedId = requireString(params, 0, "feed id").toLowerCase()
      if (!/^[0-9a-f]{64}$/.test(feedId)) throw new InvalidParamsError("Invalid params: feed id must be 64 hex characters")
      const priceText = requireString(params, 1, "price")
      if (!/^[1-9][0-9]{0,17}$/.test(priceText)) throw new InvalidParamsError("Invalid params: price must be a positive integer string")
      const exponent = params[2]
      if (typeof exponent !== "number" || !Number.isInteger(exponent) || exponent < -18 || exponent > 0) {
        throw new InvalidParamsError("Invalid params: exponent must be an integer between -18 and 0")
      }
      const account = writePriceUpdate(ledger.svm, feedId, BigInt(priceText), exponent, BigInt(ledger.slot))
      ledger.dirty = true
      return { account }
    }]
  ]
}
