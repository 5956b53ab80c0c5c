/** A wallet's positions ([n12], docs/decisions/staking.md, lending.md): native SOL, tokens, stakes, lending and escrowed lamports. */
import * as Schema from "effect/Schema"
import { Base58Address, BaseUnitsText, LamportsText, Uuid } from "../common.js"
import { endpoint } from "./endpoint.js"
import { WalletIdParams } from "./wallets.js"

export const WalletPosition = Schema.Struct({
  protocol: Schema.String,
  type: Schema.Literal("native", "token", "stake", "supply", "borrow", "escrow"),
  /** Base units of `token`: lamports for SOL, a JSON integer; any other token's, a decimal string. */
  amount: Schema.Union(BaseUnitsText, LamportsText),
  /** A mint address, or `SOL`. */
  token: Schema.String,
  /** The SOL worth, where it has one. */
  valueLamports: Schema.optional(LamportsText),
  /** USD from the Pyth oracle accounts, a decimal string with 6 places (absent without a price). */
  value: Schema.optional(Schema.String.pipe(Schema.pattern(/^-?[0-9]+\.[0-9]{6}$/))),
  /** The token account, stake pool, lending reserve or escrow account. */
  address: Schema.optional(Base58Address),
  /** A lending account's health: collateral value x factor over borrowed value, 4 places (absent with no borrow). */
  healthFactor: Schema.optional(Schema.String.pipe(Schema.pattern(/^[0-9]+\.[0-9]{4}$/))),
  /** Why `value` (or a lending position's `valueLamports`) is absent: the oracle price is older than the bound, or missing. */
  valueUnavailable: Schema.optional(Schema.String)
}).annotations({ identifier: "WalletPosition" })

export const PositionsApi = {
  list: endpoint("positions", "GET", "/api/v1/wallets/:walletId/positions", {
    summary: "A wallet's positions, read live (no transaction row)",
    params: WalletIdParams,
    success: Schema.Struct({ walletId: Uuid, positions: Schema.Array(WalletPosition) })
  })
}
