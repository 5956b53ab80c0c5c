#pragma once
/* Fees in basis points (1/10000), the unit every program's fee field uses. */
#include <solana_sdk.h>

#define BPS_DENOMINATOR 10000

/* floor(amount * bps / 10000), split so no 128-bit product is needed (bps <= 65535). */
static inline uint64_t bps_of(uint64_t amount, uint16_t bps) {
  return (amount / BPS_DENOMINATOR) * bps + ((amount % BPS_DENOMINATOR) * bps) / BPS_DENOMINATOR;
}
