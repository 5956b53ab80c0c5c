/* Exact integer arithmetic: 128-bit products from 32-bit halves, divided by shift-and-subtract. */
#include "checked_math.h"

void u128_mul(uint64_t a, uint64_t b, U128 *out) {
  uint64_t a_lo = a & 0xffffffffUL, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffUL, b_hi = b >> 32;
  uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
  uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffUL) + (p2 & 0xffffffffUL);
  out->lo = (p0 & 0xffffffffUL) | (mid << 32);
  out->hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

/* floor(a * b / d) and whether a remainder was left. noinline: one body for mul_div and mul_div_ceil. */
__attribute__((noinline)) static bool divide(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient, bool *inexact) {
  U128 n;
  u128_mul(a, b, &n);
  /* n.hi >= d: the quotient would need more than 64 bits */
  if (d == 0 || n.hi >= d) return false;
  uint64_t rem = n.hi;
  uint64_t quot = 0;
  for (uint64_t i = 0; i < 64; i++) {
    uint64_t carry = rem >> 63;
    rem = (rem << 1) | ((n.lo >> (63 - i)) & 1);
    quot <<= 1;
    /* with a carry the true remainder is 2^64 + rem >= d; the wrapped subtraction is then exact */
    if (carry != 0 || rem >= d) {
      rem -= d;
      quot |= 1;
    }
  }
  *quotient = quot;
  *inexact = rem != 0;
  return true;
}

bool mul_div(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient) {
  bool inexact;
  return divide(a, b, d, quotient, &inexact);
}

bool mul_div_ceil(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient) {
  bool inexact;
  if (!divide(a, b, d, quotient, &inexact)) return false;
  if (inexact) {
    if (*quotient == (uint64_t)-1) return false;
    *quotient += 1;
  }
  return true;
}
