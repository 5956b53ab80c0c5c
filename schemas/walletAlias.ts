/**
 * The signer's address on the DeFi and escrow helpers: the spec names it `wallet` in the bodies and
 * `walletAddress` in its tools' arguments (which its own clients send to these routes), so both names are
 * declared fields. One is required; when both are given they must agree. Decodes to `wallet` only.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Base58Address } from "./common.js"

const Address = Schema.optionalWith(Base58Address, { exact: true })

export const withWalletAddressAlias = <Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const wire = Schema.Struct({ ...fields, wallet: Address, walletAddress: Address })
  const decoded = Schema.Struct({ ...fields, wallet: Base58Address })
  return Schema.transformOrFail(wire, Schema.typeSchema(decoded), {
    strict: false,
    decode: (body, _options, ast) => {
      const { walletAddress, ...rest } = body as Readonly<Record<string, unknown>>
      if (rest.wallet !== undefined && walletAddress !== undefined && rest.wallet !== walletAddress) {
        return ParseResult.fail(new ParseResult.Pointer("walletAddress", body, new ParseResult.Type(ast, walletAddress, "must equal wallet when both are given")))
      }
      const wallet = rest.wallet ?? walletAddress
      if (wallet === undefined) return ParseResult.fail(new ParseResult.Pointer("wallet", body, new ParseResult.Type(ast, undefined, "is missing (or send walletAddress)")))
      return ParseResult.succeed({ ...rest, wallet })
    },
    encode: (body) => ParseResult.succeed(body)
  })
}
