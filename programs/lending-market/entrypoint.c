/* Lending-market program entry: parses the input and dispatches on the instruction tag. */
#include <instruction_input.h>
#include "lending.h"

/* borrow and withdraw: 6 fixed accounts plus a reserve and an oracle per obligation slot */
#define MAX_ACCOUNTS (6 + 2 * MAX_OBLIGATION_SLOTS + 4)

uint64_t entrypoint(const uint8_t *input) {
  SolParameters params;
  if (!parse_instruction(input, &params, MAX_ACCOUNTS)) return ERR_INVALID_INSTRUCTION;
  switch (params.data[0]) {
    case IX_INIT_RESERVE:
      return reserve_init(&params);
    case IX_SUPPLY:
      return market_supply(&params);
    case IX_BORROW:
      return market_borrow(&params);
    case IX_FLASH_BORROW:
      return flash_borrow(&params);
    case IX_FLASH_REPAY:
      return flash_repay(&params);
    case IX_WITHDRAW:
      return market_withdraw(&params);
    case IX_REPAY:
      return market_repay(&params);
    default:
      return ERR_INVALID_INSTRUCTION;
  }
}
