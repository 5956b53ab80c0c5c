/* Checks of the accounts a program owns: a PDA's address, an unused address, a typed state. */
#include "program_account.h"

bool pda_matches(const SolSignerSeed *seeds, uint64_t seeds_len, const SolPubkey *program_id, const SolPubkey *key,
                 uint8_t *bump) {
  SolPubkey expected;
  if (sol_try_find_program_address(seeds, seeds_len, program_id, &expected, bump) != SUCCESS) return false;
  return SolPubkey_same(&expected, key);
}

bool is_unused_account(const SolAccountInfo *account, const SolPubkey *program_id) {
  return *account->lamports == 0 && account->data_len == 0 && !SolPubkey_same(account->owner, program_id);
}

void *program_account_state(const SolAccountInfo *account, const SolPubkey *program_id, uint64_t size, uint8_t tag) {
  if (!SolPubkey_same(account->owner, program_id) || account->data_len != size) return NULL;
  if (account->data[0] != tag) return NULL;
  return account->data;
}
