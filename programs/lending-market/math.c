/* Lending-market program: exact integer arithmetic. SBPFv0 has no 128-bit multiply, so products are built
 * from 32-bit halves and divided by shift-and-subtract (as in programs/amm/math.c). */
#include "lending.h"

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

/* floor(a * b / d) and whether a remainder was left; false when d is 0 or the quotient overflows 64 bits. */
static bool divide(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient, bool *inexact) {
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
  *inexact = rem != 0;
  return true;
}

bool mul_div(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient) {
  bool inexact;
  return divide(a, b, d, quotient, &inexact);
}

/* ceil(a * b / d): debts round up, so the market never lends a fraction it does not record. */
bool mul_div_ceil(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient) {
  bool inexact;
  if (!divide(a, b, d, quotient, &inexact)) return false;
  if (inexact) {
    if (*quotient == (uint64_t)-1) return false;
    *quotient += 1;
  }
  return true;
}

/* Rent-exempt minimum = (128 + data_len) * lamports_per_byte_year * threshold (a whole-number f64). */
uint64_t rent_exempt_minimum(uint64_t data_len, uint64_t *lamports) {
  SolRent rent;
  if (sol_get_rent_sysvar(&rent) != SUCCESS) return ERR_UNSUPPORTED_RENT;
  uint64_t bits = rent.exemption_threshold_f64_bits;
  uint64_t exponent = (bits >> 52) & 0x7ff;
  uint64_t mantissa = (bits & ((1UL << 52) - 1)) | (1UL << 52);
  if ((bits >> 63) != 0 || exponent < 1023 || exponent > 1023 + 8) return ERR_UNSUPPORTED_RENT;
  uint64_t shift = 1075 - exponent;
  if ((mantissa & ((1UL << shift) - 1)) != 0) return ERR_UNSUPPORTED_RENT;
  uint64_t threshold = mantissa >> shift;
  if (data_len >= (1UL << 14) || rent.lamports_per_byte_year >= (1UL << 32)) return ERR_UNSUPPORTED_RENT;
  *lamports = (128 + data_len) * rent.lamports_per_byte_year * threshold;
  return SUCCESS;
}
