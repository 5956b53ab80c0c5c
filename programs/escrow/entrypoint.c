/* Escrow program entry: parses the input and dispatches on the instruction tag. */
#include <instruction_input.h>
#include "escrow.h"

#define MAX_ACCOUNTS 16

uint64_t entrypoint(const uint8_t *input) {
  SolParameters params;
  if (!parse_instruction(input, &params, MAX_ACCOUNTS)) return ERR_INVALID_INSTRUCTION;
  switch (params.data[0]) {
    case IX_CREATE:
      return escrow_create(&params, false);
    case IX_CREATE_MILESTONE:
      return escrow_create(&params, true);
    case IX_ACCEPT:
      return escrow_accept(&params);
    case IX_RELEASE:
      return escrow_release(&params);
    case IX_REFUND:
      return escrow_refund(&params);
    case IX_DISPUTE:
      return escrow_dispute(&params);
    case IX_RESOLVE:
      return escrow_resolve(&params);
    case IX_RELEASE_MILESTONE:
      return escrow_release_milestone(&params);
    default:
      return ERR_INVALID_INSTRUCTION;
  }
}
