/* SPL Token accounts: the check a program makes before trusting one as a vault. */
#include "spl_token.h"

bool is_vault_account(const SolAccountInfo *account, const SolPubkey *mint, const SolPubkey *owner) {
  if (!is_token_program(account->owner) || account->data_len != TOKEN_ACCOUNT_SIZE) return false;
  const uint8_t *d = account->data;
  return sol_memeq(d, mint->x, SIZE_PUBKEY) && sol_memeq(d + 32, owner->x, SIZE_PUBKEY) && coption_is_none(d + 72) &&
         d[108] == 1 && coption_is_none(d + 129);
}
