/* Escrow program: accept_escrow and dispute_escrow (status changes without payouts).
 * Accounts: 0 the signer (counterparty, or creator/counterparty for a dispute), 1 the escrow. */
#include "escrow.h"

enum { ACCOUNT_SIGNER = 0, ACCOUNT_ESCROW = 1 };

static bool is_closed(uint8_t status) {
  return status == STATUS_COMPLETED || status == STATUS_REFUNDED || status == STATUS_RESOLVED;
}

uint64_t escrow_accept(SolParameters *params) {
  if (params->data_len != 1) return ERR_INVALID_INSTRUCTION;
  EscrowState *state;
  uint64_t result = escrow_load(params, ACCOUNT_ESCROW, &state);
  if (result != SUCCESS) return result;
  const SolAccountInfo *signer = &params->ka[ACCOUNT_SIGNER];
  if (is_closed(state->status)) return ERR_ESCROW_CLOSED;
  if (state->status != STATUS_CREATED) return ERR_NOT_AWAITING_ACCEPTANCE;
  if (!SolPubkey_same(signer->key, &state->counterparty)) return ERR_ONLY_COUNTERPARTY_ACCEPTS;
  if (!signer->is_signer) return ERR_MISSING_SIGNATURE;
  int64_t now;
  if ((result = escrow_now(&now)) != SUCCESS) return result;
  if (now > state->deadline) return ERR_DEADLINE_PASSED;
  state->status = STATUS_ACCEPTED;
  emit_accepted(params->ka[ACCOUNT_ESCROW].key, state);
  return SUCCESS;
}

uint64_t escrow_dispute(SolParameters *params) {
  if (params->data_len != 1) return ERR_INVALID_INSTRUCTION;
  EscrowState *state;
  uint64_t result = escrow_load(params, ACCOUNT_ESCROW, &state);
  if (result != SUCCESS) return result;
  const SolAccountInfo *signer = &params->ka[ACCOUNT_SIGNER];
  if (is_closed(state->status)) return ERR_ESCROW_CLOSED;
  if (state->status == STATUS_DISPUTED) return ERR_DISPUTED;
  if (state->status != STATUS_ACCEPTED) return ERR_NOT_ACCEPTED;
  if (!SolPubkey_same(signer->key, &state->creator) && !SolPubkey_same(signer->key, &state->counterparty)) {
    return ERR_ONLY_CREATOR_OR_COUNTERPARTY_DISPUTES;
  }
  if (!signer->is_signer) return ERR_MISSING_SIGNATURE;
  state->status = STATUS_DISPUTED;
  emit_disputed(params->ka[ACCOUNT_ESCROW].key, state, signer->key);
  return SUCCESS;
}
