/* AMM program: exact integer arithmetic. SBPFv0 has no 128-bit multiply, so products are built from
 * 32-bit halves and divided by shift-and-subtract. */
#include "amm.h"

void mul_64x64(uint64_t a, uint64_t b, U128 *out) {
  uint64_t a_lo = a & 0xffffffffUL, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffUL, b_hi = b >> 32;
  uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
  uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffUL) + (p2 & 0xffffffffUL);
  out->lo = (p0 & 0xffffffffUL) | (mid << 32);
  out->hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

/* floor(n / d); false when d is 0 or the quotient does not fit in 64 bits. */
bool div_128by64(const U128 *n, uint64_t d, uint64_t *quotient) {
  if (d == 0 || n->hi >= d) return false;
  uint64_t rem = n->hi;
  uint64_t quot = 0;
  for (uint64_t i = 0; i < 64; i++) {
    uint64_t carry = rem >> 63;
    rem = (rem << 1) | ((n->lo >> (63 - i)) & 1);
    quot <<= 1;
    /* with a carry the true remainder is 2^64 + rem >= d; the wrapped subtraction is then exact */
    if (carry != 0 || rem >= d) {
      rem -= d;
      quot |= 1;
    }
  }
  *quotient = quot;
  return true;
}

/* floor(a * b / d) */
bool mul_div(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient) {
  U128 product;
  mul_64x64(a, b, &product);
  return div_128by64(&product, d, quotient);
}

static bool u128_le(const U128 *x, const U128 *y) {
  return x->hi < y->hi || (x->hi == y->hi && x->lo <= y->lo);
}

/* floor(sqrt(a * b)), by bisection over 64-bit roots. */
uint64_t isqrt_product(uint64_t a, uint64_t b) {
  U128 target;
  mul_64x64(a, b, &target);
  uint64_t low = 0, high = 0xffffffffUL; /* sqrt(2^128) = 2^64: answer < 2^64 */
  high = (high << 32) | 0xffffffffUL;
  while (low < high) {
    uint64_t mid = low + (high - low) / 2 + 1;
    U128 square;
    mul_64x64(mid, mid, &square);
    if (u128_le(&square, &target)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/* floor(amount * fee_bps / 10000) without a 128-bit product. */
uint64_t fee_of(uint64_t amount, uint16_t fee_bps) {
  return (amount / BPS_DENOMINATOR) * fee_bps + ((amount % BPS_DENOMINATOR) * fee_bps) / BPS_DENOMINATOR;
}

/* Constant product after the fee: net = in - fee; out = floor(reserve_out * net / (reserve_in + net)). */
bool swap_output(uint64_t amount_in, uint64_t reserve_in, uint64_t reserve_out, uint16_t fee_bps, uint64_t *out) {
  uint64_t net = amount_in - fee_of(amount_in, fee_bps);
  uint64_t denominator = reserve_in + net;
  if (denominator < reserve_in) return false;
  return mul_div(reserve_out, net, denominator, out);
}
