#pragma once
/* Exact integer arithmetic shared by the programs. SBPFv0 has no 128-bit multiply (clang would emit a
 * libcall the linker cannot resolve), so products are built from 32-bit halves (checked_math.c). */
#include <solana_sdk.h>

typedef struct {
  uint64_t hi;
  uint64_t lo;
} U128;

/* The full 128-bit product a * b. */
void u128_mul(uint64_t a, uint64_t b, U128 *out);

/* floor(a * b / d); false when d is 0 or the quotient does not fit in 64 bits. */
bool mul_div(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient);

/* ceil(a * b / d); false as mul_div, or when rounding up overflows. */
bool mul_div_ceil(uint64_t a, uint64_t b, uint64_t d, uint64_t *quotient);

/* Whether a + b wraps (for a check before the additions are made). */
static inline bool add_overflows(uint64_t a, uint64_t b) {
  return a + b < a;
}

/* a + b; false when it wraps. */
static inline bool checked_add(uint64_t a, uint64_t b, uint64_t *sum) {
  *sum = a + b;
  return *sum >= a;
}
