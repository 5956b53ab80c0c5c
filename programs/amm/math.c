/* AMM program: the pool's formulas, exact in integers (include/checked_math.h). */
#include "amm.h"

static bool u128_le(const U128 *x, const U128 *y) {
  return x->hi < y->hi || (x->hi == y->hi && x->lo <= y->lo);
}

/* floor(sqrt(a * b)), by bisection over 64-bit roots. */
uint64_t isqrt_product(uint64_t a, uint64_t b) {
  U128 target;
  u128_mul(a, b, &target);
  uint64_t low = 0, high = 0xffffffffUL; /* sqrt(2^128) = 2^64: answer < 2^64 */
  high = (high << 32) | 0xffffffffUL;
  while (low < high) {
    uint64_t mid = low + (high - low) / 2 + 1;
    U128 square;
    u128_mul(mid, mid, &square);
    if (u128_le(&square, &target)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/* Constant product after the fee: net = in - fee; out = floor(reserve_out * net / (reserve_in + net)). */
bool swap_output(uint64_t amount_in, uint64_t reserve_in, uint64_t reserve_out, uint16_t fee_bps, uint64_t *out) {
  uint64_t net = amount_in - bps_of(amount_in, fee_bps);
  uint64_t denominator;
  if (!checked_add(reserve_in, net, &denominator)) return false;
  return mul_div(reserve_out, net, denominator, out);
}
