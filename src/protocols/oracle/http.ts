/**
 * Oracle prices (docs/decisions/swaps.md): GET /defi/oracle/prices reads every known feed's PriceUpdateV2
 * account from the chain; PUT /defi/oracle/prices/<symbol> (an operator of the deployment) posts a new price
 * on the local ledger through its `setPythPriceUpdate` method. On a real cluster Pyth posts the prices and the
 * PUT fails, since that ledger has no such method. Each listed price carries its age by the chain's clock and
 * whether the service would use it (ORACLE_MAX_PRICE_AGE_SECONDS, docs/decisions/oracle.md); a PUT with a
 * publishTime posts a price that old and stalls the feed there (the local ledger's refresher leaves it).
 */
import { Effect, Schema } from "effect"
import { DefiApi, SetOraclePriceBody } from "../../../schemas/api/defi.js"
import { NotFound, UpstreamUnavailable, ValidationError } from "../../../schemas/errors.js"
import { ChainClient } from "../../chain/chainClient.js"
import { ok } from "../../gateway/envelope.js"
import { decodeBody, pathParam } from "../../gateway/request.js"
import { route } from "../../gateway/route.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import { KNOWN_MINTS } from "../amm/localPools.js"
import { FEEDS, feedBySymbol } from "./feeds.js"
import { OracleFreshness } from "./oracleFreshness.js"
import { readMintPrices } from "./oracleReads.js"
import { stalenessOf } from "./priceFreshness.js"

const upstream = (error: { readonly message: string }) => new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` })

const listPrices = Effect.gen(function* () {
  const facts = yield* ChainFacts
  const { maxAgeSeconds } = yield* OracleFreshness
  const mints = FEEDS.map((feed) => KNOWN_MINTS.find((m) => m.symbol === feed.symbol)!.address.toBase58())
  const prices = yield* readMintPrices(facts.accounts, mints).pipe(Effect.mapError(upstream))
  return ok({
    maxPriceAgeSeconds: maxAgeSeconds,
    prices: FEEDS.map((feed, i) => {
      const price = prices[i] ?? null
      return {
        symbol: feed.symbol,
        mint: mints[i],
        feedId: feed.feedId,
        ...(price === null
          ? { account: null, price: null }
          : {
              account: price.account,
              price: price.update.price.toString(),
              exponent: price.update.exponent,
              conf: price.update.conf.toString(),
              publishTime: new Date(Number(price.update.publishTime) * 1000).toISOString(),
              ...(price.chainTime === null ? {} : { ageSeconds: Number(price.chainTime - price.update.publishTime) }),
              stale: stalenessOf(price, maxAgeSeconds) !== null
            })
      }
    })
  })
})

const setPrice = Effect.gen(function* () {
  const symbol = yield* pathParam("symbol", Schema.String)
  const feed = feedBySymbol(symbol)
  if (feed === undefined) return yield* new NotFound({ resource: "oracle feed", id: symbol })
  const body = yield* decodeBody(SetOraclePriceBody)
  const chain = yield* ChainClient
  const publishTime = body.publishTime === undefined ? undefined : Math.floor(Date.parse(body.publishTime) / 1000)
  const params = [feed.feedId, body.price, body.exponent, ...(publishTime === undefined ? [] : [publishTime])]
  const result = yield* chain.rpc<{ account: string }>("setPythPriceUpdate", params).pipe(
    Effect.catchTag("RpcApplicationError", (error) =>
      Effect.fail(new ValidationError({ message: `symbol: this ledger does not take operator prices (only the local ledger does): ${error.message}`, field: "symbol" }))
    ),
    Effect.mapError((error) => (error._tag === "ValidationError" ? error : upstream(error)))
  )
  return ok({
    symbol, feedId: feed.feedId, account: result.account, price: body.price, exponent: body.exponent,
    ...(publishTime === undefined ? {} : { publishTime: new Date(publishTime * 1000).toISOString() })
  })
})

export const oracleRoutes = [
  route(DefiApi.oraclePrices, listPrices, "agent"),
  route(DefiApi.setOraclePrice, setPrice, "deployment")
]
