/** The price-age bound every oracle consumer applies (priceFreshness.ts), read once from ORACLE_MAX_PRICE_AGE_SECONDS. */
import { Effect } from "effect"
import { AppConfig } from "../../config.js"

export class OracleFreshness extends Effect.Service<OracleFreshness>()("OracleFreshness", {
  effect: Effect.map(AppConfig, (config) => ({ maxAgeSeconds: config.oracle.maxPriceAgeSeconds }))
}) {}
