/** The AMM program's custom error codes (programs/amm/amm.h) with readable messages. */
export const AMM_ERRORS: Readonly<Record<number, string>> = {
  7000: "invalid instruction",
  7001: "not enough accounts",
  7002: "missing signature",
  7003: "account not writable",
  7004: "wrong pool address",
  7005: "pool already exists",
  7006: "not a pool of this program",
  7007: "mints not in canonical order",
  7008: "bad vault account",
  7009: "bad LP mint",
  7010: "fee above 1000 bps",
  7011: "zero amount",
  7012: "output below minimumOut (the pool moved; slippage bound hit)",
  7013: "wrong vault for this pool",
  7014: "pool is empty",
  7015: "arithmetic overflow",
  7016: "wrong token program",
  7017: "wrong system program",
  7018: "unsupported rent parameters",
  7019: "LP shares below minimum",
  7020: "insufficient funds",
  7021: "bad mint account",
  7022: "output rounds to zero"
}

export const OUTPUT_BELOW_MINIMUM = 7012
