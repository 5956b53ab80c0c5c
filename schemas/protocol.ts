/**
 * Protocols: the nine protocol identifiers, adapters and their health, and the DeFi helper bodies
 * (spec: Protocol adapter, Protocols and DeFi helpers).
 * This file imports nothing from intent.ts, so intent.ts can import ProtocolId without a cycle;
 * the bodies that carry an intent (compatibility-check, migrate-intent) live in intent.ts.
 */
import * as Schema from "effect/Schema"
import { AmountString, Base58Address, BasisPoints } from "./common.js"
import { withWalletAddressAlias } from "./walletAlias.js"

export const PROTOCOLS = [
  "system-program",
  "spl-token",
  "escrow",
  "dex-aggregator",
  "amm-one",
  "amm-two",
  "liquid-staking",
  "lending-market",
  "nft-program"
] as const

/** A Literal union's own message only shows with `override` (else each member reports "Expected x"). */
const mustBeOneOf = (values: ReadonlyArray<string>) => () => ({
  message: `must be one of: ${values.join(", ")}`,
  override: true
})

export const ProtocolId = Schema.Literal(...PROTOCOLS).annotations({
  identifier: "ProtocolId",
  message: mustBeOneOf(PROTOCOLS)
})
export type ProtocolId = typeof ProtocolId.Type

export const isProtocolId = Schema.is(ProtocolId)

export const ProtocolAdapter = Schema.Struct({
  protocol: ProtocolId,
  version: Schema.String,
  capabilities: Schema.Array(Schema.String),
  programIds: Schema.Array(Base58Address)
})
export type ProtocolAdapter = typeof ProtocolAdapter.Type

export const ProtocolList = Schema.Struct({ protocols: Schema.Array(ProtocolAdapter) })

/** `GET /protocols/<protocol>/version` (shape not shown): the adapter's version string. */
export const ProtocolVersion = Schema.Struct({ protocol: ProtocolId, version: Schema.String })
export type ProtocolVersion = typeof ProtocolVersion.Type

export const ProtocolHealth = Schema.Struct({
  protocol: ProtocolId,
  ok: Schema.Boolean,
  configured: Schema.optional(Schema.Boolean),
  deployed: Schema.optional(Schema.Boolean),
  programId: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String)
})
export type ProtocolHealth = typeof ProtocolHealth.Type

export const ProtocolHealthList = Schema.Struct({ protocols: Schema.Array(ProtocolHealth) })

/** Path parameter `<protocol>`: an unknown protocol is a 400 naming the parameter. */
export const ProtocolPathParams = Schema.Struct({ protocol: ProtocolId })

// ---- DeFi helper bodies -------------------------------------------------------------------

/** Same field type as intent.ts's PositiveTokenAmount (not imported: intent.ts imports this file). */
const PositiveAmountString = AmountString.annotations({
  message: () => ({
    message: "must be a non-negative integer up to 18446744073709551615 (u64): a decimal string, or a JSON number up to 9007199254740991",
    override: true
  })
}).pipe(Schema.filter((value) => value > 0n, { message: () => "must be greater than 0" }))

export const SwapProtocol = Schema.Literal("dex-aggregator", "amm-one", "amm-two").annotations({
  message: mustBeOneOf(["dex-aggregator", "amm-one", "amm-two"])
})
export type SwapProtocol = typeof SwapProtocol.Type

/** Body of `POST /defi/quote` and `POST /defi/swap` (`wallet`, or its alias `walletAddress`). */
export const QuoteBody = withWalletAddressAlias({
  protocol: SwapProtocol,
  inputMint: Base58Address,
  outputMint: Base58Address,
  amount: PositiveAmountString,
  slippageBps: Schema.optionalWith(BasisPoints, { exact: true, default: () => 50 })
})
export type QuoteBody = typeof QuoteBody.Type
export const SwapBody = QuoteBody
export type SwapBody = QuoteBody

export const StakeProtocol = Schema.Literal("liquid-staking", "lending-market").annotations({
  message: mustBeOneOf(["liquid-staking", "lending-market"])
})

/** Body of `POST /defi/stake`: amount in lamports. */
export const StakeBody = withWalletAddressAlias({
  protocol: StakeProtocol,
  amount: PositiveAmountString,
  validator: Schema.optionalWith(Base58Address, { exact: true })
})
export type StakeBody = typeof StakeBody.Type

export const UnstakeBody = withWalletAddressAlias({
  protocol: StakeProtocol,
  amount: PositiveAmountString
})
export type UnstakeBody = typeof UnstakeBody.Type

/** Body of `POST /defi/lend/supply` and `POST /defi/lend/borrow`. */
export const LendBody = withWalletAddressAlias({
  protocol: Schema.Literal("lending-market").annotations({ message: () => "must be lending-market" }),
  mint: Base58Address,
  amount: PositiveAmountString
})
export type LendBody = typeof LendBody.Type
