#pragma once
/* The ledger's clock, for deadlines and interest. */
#include <solana_sdk.h>

/* The Clock sysvar's unix timestamp; false when the sysvar cannot be read (each program has its own code). */
static inline bool clock_unix_timestamp(int64_t *now) {
  SolClock clock;
  if (sol_get_clock_sysvar(&clock) != SUCCESS) return false;
  *now = clock.unix_timestamp;
  return true;
}
