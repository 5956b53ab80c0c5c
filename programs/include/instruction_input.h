#pragma once
/* The start of every entrypoint: parse the runtime's input and require an instruction tag. */
#include <solana_sdk.h>

/* The parsed account table goes on the heap (max_accounts x 56 bytes would not fit clang's 512-byte frame).
 * False when there are more than max_accounts accounts or no instruction data. */
static inline bool parse_instruction(const uint8_t *input, SolParameters *params, uint64_t max_accounts) {
  params->ka = (SolAccountInfo *)SOL_HEAP_START;
  if (!sol_deserialize(input, params, max_accounts)) return false;
  return params->data_len != 0;
}
