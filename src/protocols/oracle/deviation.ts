/**
 * Oracle price of a swap and its deviation (pure): the oracle's price of the input in output units
 * (USD prices of both feeds, decimals applied) against the quote's execution price (out / in).
 */
import type { PriceUpdate } from "./priceUpdate.js"

export interface OracleComparison {
  /** output base units per input base unit, by the oracle, as a decimal string with 12 places */
  readonly oraclePrice: string
  readonly quotePrice: string
  readonly deviationBps: number
}

const SCALE = 10n ** 12n

/** USD value of one base unit of a mint, scaled: price * 10^exponent / 10^decimals, as numerator/denominator. */
const usdPerBaseUnit = (update: PriceUpdate, decimals: number): { num: bigint; den: bigint } => {
  const exp = update.exponent - decimals
  return exp >= 0 ? { num: update.price * 10n ** BigInt(exp), den: 1n } : { num: update.price, den: 10n ** BigInt(-exp) }
}

const decimal = (scaled: bigint) => {
  const whole = scaled / SCALE
  const fraction = (scaled % SCALE).toString().padStart(12, "0")
  return `${whole}.${fraction}`
}

export const compareWithOracle = (
  input: { readonly update: PriceUpdate; readonly decimals: number },
  output: { readonly update: PriceUpdate; readonly decimals: number },
  inAmount: bigint,
  outAmount: bigint
): OracleComparison | null => {
  if (input.update.price <= 0n || output.update.price <= 0n || inAmount <= 0n) return null
  const a = usdPerBaseUnit(input.update, input.decimals)
  const b = usdPerBaseUnit(output.update, output.decimals)
  // oracle: output units per input unit = (a.num/a.den) / (b.num/b.den)
  const oracleScaled = (a.num * b.den * SCALE) / (a.den * b.num)
  const quoteScaled = (outAmount * SCALE) / inAmount
  if (oracleScaled === 0n) return null
  const diff = oracleScaled > quoteScaled ? oracleScaled - quoteScaled : quoteScaled - oracleScaled
  return { oraclePrice: decimal(oracleScaled), quotePrice: decimal(quoteScaled), deviationBps: Number((diff * 10_000n) / oracleScaled) }
}
