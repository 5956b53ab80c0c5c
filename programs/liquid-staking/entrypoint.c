/* Liquid-staking program entry: parses the input and dispatches on the instruction tag. */
#include <instruction_input.h>
#include "staking.h"

#define MAX_ACCOUNTS 16

uint64_t entrypoint(const uint8_t *input) {
  SolParameters params;
  if (!parse_instruction(input, &params, MAX_ACCOUNTS)) return ERR_INVALID_INSTRUCTION;
  switch (params.data[0]) {
    case IX_INIT_POOL:
      return pool_init(&params);
    case IX_STAKE:
      return pool_stake(&params);
    case IX_UNSTAKE:
      return pool_unstake(&params);
    case IX_ADD_REWARDS:
      return pool_add_rewards(&params);
    default:
      return ERR_INVALID_INSTRUCTION;
  }
}
