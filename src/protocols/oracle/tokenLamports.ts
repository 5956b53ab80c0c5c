/** A token amount's worth in lamports at two oracle prices (the token's and SOL's, both in USD). */

export interface PriceQuote {
  /** price x 10^exponent USD */
  readonly price: bigint
  readonly exponent: number
}

/** amount (base units, `decimals`) of a token at `token` USD, in lamports at `sol` USD; floor. */
export const tokenLamports = (amount: bigint, decimals: number, token: PriceQuote, sol: PriceQuote): bigint => {
  const shift = token.exponent - sol.exponent + 9 - decimals
  const scaled = amount * token.price
  return shift >= 0 ? (scaled * 10n ** BigInt(shift)) / sol.price : scaled / (sol.price * 10n ** BigInt(-shift))
}
