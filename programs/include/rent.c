/* Rent-exempt minimum without floating point: the threshold is an f64 (2.0 on every cluster) and BPF has
 * no FPU, so only a whole-number threshold is accepted, decoded from its IEEE-754 bits. */
#include "rent.h"

bool rent_exempt_minimum(uint64_t data_len, uint64_t *lamports) {
  SolRent rent;
  if (sol_get_rent_sysvar(&rent) != SUCCESS) return false;
  uint64_t bits = rent.exemption_threshold_f64_bits;
  uint64_t exponent = (bits >> 52) & 0x7ff;
  uint64_t mantissa = (bits & ((1UL << 52) - 1)) | (1UL << 52);
  if ((bits >> 63) != 0 || exponent < 1023 || exponent > 1023 + 8) return false;
  uint64_t shift = 1075 - exponent; /* threshold = mantissa >> shift when it is a whole number */
  if ((mantissa & ((1UL << shift) - 1)) != 0) return false;
  uint64_t threshold = mantissa >> shift; /* < 2^9 by the exponent bound */
  /* Bounds instead of overflow checks (a checked 64-bit multiply needs a 128-bit libcall):
   * (128 + data_len) < 2^15, lamports per byte-year < 2^32 and threshold < 2^9 keep the product below 2^64. */
  if (data_len >= (1UL << 14) || rent.lamports_per_byte_year >= (1UL << 32)) return false;
  *lamports = (128 + data_len) * rent.lamports_per_byte_year * threshold;
  return true;
}
