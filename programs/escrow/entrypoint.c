/* Escrow program entry: parses the input and dispatches on the instruction tag. */
#include "escrow.h"

#define MAX_ACCOUNTS 16

uint64_t entrypoint(const uint8_t *input) {
  SolParameters params;
  /* The parsed account table lives on the heap: 16 x 56 bytes would not fit clang's 512-byte frame. */
  params.ka = (SolAccountInfo *)SOL_HEAP_START;
  if (!sol_deserialize(input, &params, MAX_ACCOUNTS)) return ERR_INVALID_INSTRUCTION;
  if (params.data_len == 0) return ERR_INVALID_INSTRUCTION;
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
