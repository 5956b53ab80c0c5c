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
  SolClock clock;
  if (sol_get_clock_sysvar(&clock) != SUCCESS) return ERR_CLOCK_UNAVAILABLE;
  *unix_timestamp = clock.unix_timestamp;
  return SUCCESS;
}

/* A payee account must be the one recorded in the state and writable. */
uint64_t escrow_require_account(const SolAccountInfo *account, const SolPubkey *expected, uint64_t wrong_key_error) {
  if (!SolPubkey_same(account->key, expected)) return wrong_key_error;
  if (!account->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  return SUCCESS;
}

/* The escrow account belongs to this program, so it may debit it directly. Callers have checked
 * that `amount` is within what is still locked, so the rent reserve is never touched. */
void escrow_move_lamports(SolAccountInfo *from, SolAccountInfo *to, uint64_t amount) {
  if (amount == 0) return;
  *from->lamports -= amount;
  *to->lamports += amount;
}
