/* Escrow program: the instructions that move locked lamports out of the escrow account.
 * The escrow keeps its rent-exempt reserve and its state (with a final status) forever, so the
 * history stays readable and a second release or refund is refused by status. Every payout is within what is
 * still locked (amount - paid_out), so move_lamports never reaches the rent reserve. */
#include "escrow.h"

enum { ACCOUNT_AUTHORITY = 0, ACCOUNT_ESCROW = 1 };
/* release / release_milestone: 2 counterparty, 3 fee recipient. refund: 2 creator.
 * resolve: 2 creator, 3 counterparty, 4 fee recipient. */

static bool is_closed(uint8_t status) {
  return status == STATUS_COMPLETED || status == STATUS_REFUNDED || status == STATUS_RESOLVED;
}

static uint64_t remaining(const EscrowState *state) { return state->amount - state->paid_out; }

/* Pays `gross` of the locked amount to the counterparty, less the fee, which goes to the fee recipient. */
static void pay_counterparty(SolParameters *params, EscrowState *state, uint64_t counterparty_index, uint64_t gross, Payout *payout) {
  payout->fee = bps_of(gross, state->fee_bps);
  payout->to_counterparty = gross - payout->fee;
  payout->to_creator = 0;
  SolAccountInfo *escrow = &params->ka[ACCOUNT_ESCROW];
  move_lamports(escrow, &params->ka[counterparty_index], payout->to_counterparty);
  move_lamports(escrow, &params->ka[counterparty_index + 1], payout->fee);
  state->paid_out += gross;
}

/* Shared checks of release and release_milestone: accepted escrow, creator or arbiter signing,
 * the recorded counterparty and fee recipient passed writable. */
static uint64_t check_release(SolParameters *params, EscrowState **loaded) {
  if (params->ka_num < 4) return ERR_NOT_ENOUGH_ACCOUNTS;
  uint64_t result = escrow_load(params, ACCOUNT_ESCROW, loaded);
  if (result != SUCCESS) return result;
  EscrowState *state = *loaded;
  const SolAccountInfo *authority = &params->ka[ACCOUNT_AUTHORITY];
  if (is_closed(state->status)) return ERR_ESCROW_CLOSED;
  if (state->status == STATUS_DISPUTED) return ERR_DISPUTED;
  if (state->status != STATUS_ACCEPTED) return ERR_NOT_ACCEPTED;
  if (!SolPubkey_same(authority->key, &state->creator) && !SolPubkey_same(authority->key, &state->arbiter)) {
    return ERR_ONLY_CREATOR_OR_ARBITER_RELEASES;
  }
  if (!authority->is_signer) return ERR_MISSING_SIGNATURE;
  if ((result = escrow_require_account(&params->ka[2], &state->counterparty, ERR_WRONG_COUNTERPARTY_ACCOUNT)) != SUCCESS) return result;
  return escrow_require_account(&params->ka[3], &state->fee_recipient, ERR_WRONG_FEE_RECIPIENT_ACCOUNT);
}

uint64_t escrow_release(SolParameters *params) {
  if (params->data_len != 1) return ERR_INVALID_INSTRUCTION;
  EscrowState *state;
  uint64_t result = check_release(params, &state);
  if (result != SUCCESS) return result;
  Payout payout;
  pay_counterparty(params, state, 2, remaining(state), &payout);
  state->released_milestones = (uint8_t)((1U << state->milestone_count) - 1);
  state->status = STATUS_COMPLETED;
  emit_released(params->ka[ACCOUNT_ESCROW].key, state, params->ka[ACCOUNT_AUTHORITY].key, &payout, WHOLE_REMAINDER);
  return SUCCESS;
}

uint64_t escrow_release_milestone(SolParameters *params) {
  if (params->data_len != 2) return ERR_INVALID_INSTRUCTION;
  EscrowState *state;
  uint64_t result = check_release(params, &state);
  if (result != SUCCESS) return result;
  uint8_t index = params->data[1];
  if (state->milestone_count == 0) return ERR_NOT_MILESTONE_ESCROW;
  if (index >= state->milestone_count) return ERR_MILESTONE_INDEX_OUT_OF_RANGE;
  if (state->released_milestones & (1U << index)) return ERR_MILESTONE_ALREADY_RELEASED;
  Payout payout;
  pay_counterparty(params, state, 2, state->milestones[index], &payout);
  state->released_milestones |= (uint8_t)(1U << index);
  if (state->released_milestones == (uint8_t)((1U << state->milestone_count) - 1)) state->status = STATUS_COMPLETED;
  emit_released(params->ka[ACCOUNT_ESCROW].key, state, params->ka[ACCOUNT_AUTHORITY].key, &payout, index);
  return SUCCESS;
}

/* Refund rules: the arbiter may refund a created or accepted escrow at any time; the creator
 * may refund only an escrow nobody accepted, and only after its deadline. */
uint64_t escrow_refund(SolParameters *params) {
  if (params->data_len != 1) return ERR_INVALID_INSTRUCTION;
  if (params->ka_num < 3) return ERR_NOT_ENOUGH_ACCOUNTS;
  EscrowState *state;
  uint64_t result = escrow_load(params, ACCOUNT_ESCROW, &state);
  if (result != SUCCESS) return result;
  const SolAccountInfo *authority = &params->ka[ACCOUNT_AUTHORITY];
  if (is_closed(state->status)) return ERR_ESCROW_CLOSED;
  if (state->status == STATUS_DISPUTED) return ERR_DISPUTED;
  bool by_arbiter = SolPubkey_same(authority->key, &state->arbiter);
  if (!by_arbiter && !SolPubkey_same(authority->key, &state->creator)) return ERR_ONLY_CREATOR_OR_ARBITER_REFUNDS;
  if (!authority->is_signer) return ERR_MISSING_SIGNATURE;
  if (!by_arbiter) {
    if (state->status != STATUS_CREATED) return ERR_ACCEPTED_ONLY_ARBITER_REFUNDS;
    int64_t now;
    if ((result = escrow_now(&now)) != SUCCESS) return result;
    if (now <= state->deadline) return ERR_DEADLINE_NOT_REACHED;
  }
  if ((result = escrow_require_account(&params->ka[2], &state->creator, ERR_WRONG_CREATOR_ACCOUNT)) != SUCCESS) return result;
  uint64_t refunded = remaining(state);
  move_lamports(&params->ka[ACCOUNT_ESCROW], &params->ka[2], refunded);
  state->paid_out += refunded;
  state->status = STATUS_REFUNDED;
  emit_refunded(params->ka[ACCOUNT_ESCROW].key, state, authority->key, refunded);
  return SUCCESS;
}

uint64_t escrow_resolve(SolParameters *params) {
  if (params->data_len != 2) return ERR_INVALID_INSTRUCTION;
  uint8_t decision = params->data[1];
  if (decision != DECISION_RELEASE && decision != DECISION_REFUND) return ERR_INVALID_DECISION;
  if (params->ka_num < 5) return ERR_NOT_ENOUGH_ACCOUNTS;
  EscrowState *state;
  uint64_t result = escrow_load(params, ACCOUNT_ESCROW, &state);
  if (result != SUCCESS) return result;
  const SolAccountInfo *arbiter = &params->ka[ACCOUNT_AUTHORITY];
  if (is_closed(state->status)) return ERR_ESCROW_CLOSED;
  if (state->status != STATUS_DISPUTED) return ERR_NOT_DISPUTED;
  if (!SolPubkey_same(arbiter->key, &state->arbiter)) return ERR_ONLY_ARBITER_RESOLVES;
  if (!arbiter->is_signer) return ERR_MISSING_SIGNATURE;
  if ((result = escrow_require_account(&params->ka[2], &state->creator, ERR_WRONG_CREATOR_ACCOUNT)) != SUCCESS) return result;
  if ((result = escrow_require_account(&params->ka[3], &state->counterparty, ERR_WRONG_COUNTERPARTY_ACCOUNT)) != SUCCESS) return result;
  if ((result = escrow_require_account(&params->ka[4], &state->fee_recipient, ERR_WRONG_FEE_RECIPIENT_ACCOUNT)) != SUCCESS) return result;
  Payout payout;
  if (decision == DECISION_RELEASE) {
    pay_counterparty(params, state, 3, remaining(state), &payout);
    state->released_milestones = (uint8_t)((1U << state->milestone_count) - 1);
  } else {
    payout.to_counterparty = 0;
    payout.fee = 0;
    payout.to_creator = remaining(state);
    move_lamports(&params->ka[ACCOUNT_ESCROW], &params->ka[2], payout.to_creator);
    state->paid_out += payout.to_creator;
  }
  state->status = STATUS_RESOLVED;
  state->resolution = decision;
  emit_resolved(params->ka[ACCOUNT_ESCROW].key, state, arbiter->key, &payout);
  return SUCCESS;
}
