/* SPL Token mints: the checks a program makes before trusting one. */
#include "spl_token.h"

bool is_initialized_mint(const SolAccountInfo *mint) {
  return is_token_program(mint->owner) && mint->data_len == MINT_SIZE && mint->data[45] == 1;
}

bool is_fresh_mint(const SolAccountInfo *mint, const SolPubkey *authority) {
  if (!is_token_program(mint->owner) || mint->data_len != MINT_SIZE) return false;
  const uint8_t *d = mint->data;
  return d[0] == 1 && d[1] == 0 && d[2] == 0 && d[3] == 0 && sol_memeq(d + 4, authority->x, SIZE_PUBKEY) &&
         sol_read_u64(d + 36) == 0 && d[45] == 1 && coption_is_none(d + 46);
}
