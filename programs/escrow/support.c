/* Escrow program: checks and arithmetic shared by every instruction. */
#include "escrow.h"

/* Account `index` must be a writable escrow account of this program holding a valid state. */
uint64_t escrow_load(const SolParameters *params, uint64_t index, EscrowState **state) {
  if (params->ka_num <= index) return ERR_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *account = &params->ka[index];
  EscrowState *loaded = program_account_state(account, params->program_id, sizeof(EscrowState), ESCROW_ACCOUNT_TAG);
  if (loaded == NULL) return ERR_NOT_AN_ESCROW;
  if (!account->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  *state = loaded;
  return SUCCESS;
}

uint64_t escrow_now(int64_t *unix_timestamp) {
  return clock_unix_timestamp(unix_timestamp) ? SUCCESS : ERR_CLOCK_UNAVAILABLE;
}

/* A payee account must be the one recorded in the state and writable. */
uint64_t escrow_require_account(const SolAccountInfo *account, const SolPubkey *expected, uint64_t wrong_key_error) {
  if (!SolPubkey_same(account->key, expected)) return wrong_key_error;
  if (!account->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  return SUCCESS;
}
