/* Liquid-staking program: exact integer arithmetic. SBPFv0 has no 128-bit multiply, so products are built
 * from 32-bit halves and divided by shift-and-subtract (as in programs/amm/math.c). */
#include "staking.h"

typedef struct {
  uint64_t hi;
  uint64_t lo;
} U128;

static void mul_64x64(uint64_t a, uint64_t b, U128 *out) {
  uint64_t a_lo = a & 0xffffffffUL, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffUL, b_hi = b >> 32;
  uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
  uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffUL) + (p2 & 0xffffffffUL);
  out->lo = (p0 & 0xffffffffUL) | (mid << 32);
  out->hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

/* floor(a * b / d); false when d is 0 or the quotient does not fit in 64 bits. */
bool mul_div(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient) {
  U128 n;
  mul_64x64(a, b, &n);
  if (d == 0 || n.hi >= d) return false;
  uint64_t rem = n.hi;
  uint64_t quot = 0;
  for (uint64_t i = 0; i < 64; i++) {
    uint64_t carry = rem >> 63;
    rem = (rem << 1) | ((n.lo >> (63 - i)) & 1);
    quot <<= 1;
    if (carry != 0 || rem >= d) {
      rem -= d;
      quot |= 1;
    }
  }
  *quotient = quot;
  return true;
}

/* floor(amount * fee_bps / 10000) without a 128-bit product. */
uint64_t fee_of(uint64_t amount, uint16_t fee_bps) {
  return (amount / BPS_DENOMINATOR) * fee_bps + ((amount % BPS_DENOMINATOR) * fee_bps) / BPS_DENOMINATOR;
}
