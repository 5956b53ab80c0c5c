/* AMM program entry: parses the input and dispatches on the instruction tag. */
#include <instruction_input.h>
#include "amm.h"

#define MAX_ACCOUNTS 16

uint64_t entrypoint(const uint8_t *input) {
  SolParameters params;
  if (!parse_instruction(input, &params, MAX_ACCOUNTS)) return ERR_INVALID_INSTRUCTION;
  switch (params.data[0]) {
    case IX_INIT_POOL:
      return pool_init(&params);
    case IX_ADD_LIQUIDITY:
      return pool_add_liquidity(&params);
    case IX_SWAP:
      return pool_swap(&params);
    case IX_REMOVE_LIQUIDITY:
      return pool_remove_liquidity(&params);
    default:
      return ERR_INVALID_INSTRUCTION;
  }
}
