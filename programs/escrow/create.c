/* Escrow program: create_escrow and create_milestone_escrow.
 * Creates the escrow PDA through the system program, funded with rent + amount by the creator. */
#include "escrow.h"

/* Instruction data offsets shared by both create variants. */
#define AT_ESCROW_ID 1
#define AT_AMOUNT 9
#define AT_DEADLINE 17
#define AT_FEE_BPS 25
#define AT_TERMS_HASH 27
#define AT_COUNTERPARTY 59
#define AT_ARBITER 91
#define AT_FEE_RECIPIENT 123
#define CREATE_DATA_LEN 155
#define AT_MILESTONE_COUNT 155
#define AT_MILESTONES 156

enum { ACCOUNT_CREATOR = 0, ACCOUNT_ESCROW = 1, ACCOUNT_SYSTEM_PROGRAM = 2 };

/* Reads the milestone amounts into the state; they must be positive and sum to the amount. */
static uint64_t read_milestones(const SolParameters *params, EscrowState *state) {
  if (params->data_len <= AT_MILESTONE_COUNT) return ERR_INVALID_INSTRUCTION;
  uint8_t count = params->data[AT_MILESTONE_COUNT];
  if (count == 0 || count > MAX_MILESTONES) return ERR_BAD_MILESTONE_COUNT;
  if (params->data_len != AT_MILESTONES + 8 * (uint64_t)count) return ERR_INVALID_INSTRUCTION;
  uint64_t sum = 0;
  for (uint8_t i = 0; i < count; i++) {
    uint64_t part = sol_read_u64(params->data + AT_MILESTONES + 8 * (uint64_t)i);
    if (part == 0) return ERR_ZERO_MILESTONE;
    if (!checked_add(sum, part, &sum)) return ERR_ARITHMETIC_OVERFLOW;
    state->milestones[i] = part;
  }
  if (sum != state->amount) return ERR_MILESTONE_SUM_MISMATCH;
  state->milestone_count = count;
  return SUCCESS;
}

/* Fills a state from the instruction data and checks the terms that do not need accounts. */
static uint64_t read_terms(const SolParameters *params, bool with_milestones, EscrowState *state) {
  if (with_milestones ? params->data_len < AT_MILESTONES : params->data_len != CREATE_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  const uint8_t *data = params->data;
  sol_memset(state, 0, sizeof(EscrowState));
  state->account_tag = ESCROW_ACCOUNT_TAG;
  state->status = STATUS_CREATED;
  state->escrow_id = sol_read_u64(data + AT_ESCROW_ID);
  state->amount = sol_read_u64(data + AT_AMOUNT);
  state->deadline = (int64_t)sol_read_u64(data + AT_DEADLINE);
  state->fee_bps = sol_read_u16(data + AT_FEE_BPS);
  sol_memcpy(state->terms_hash, data + AT_TERMS_HASH, 32);
  sol_memcpy(&state->counterparty, data + AT_COUNTERPARTY, SIZE_PUBKEY);
  sol_memcpy(&state->arbiter, data + AT_ARBITER, SIZE_PUBKEY);
  sol_memcpy(&state->fee_recipient, data + AT_FEE_RECIPIENT, SIZE_PUBKEY);
  if (state->amount == 0) return ERR_ZERO_AMOUNT;
  if (state->fee_bps > MAX_FEE_BPS) return ERR_FEE_TOO_HIGH;
  if (with_milestones) return read_milestones(params, state);
  return SUCCESS;
}

/* system_program::CreateAccount signed by the creator and by the escrow PDA. */
static uint64_t create_escrow_account(SolParameters *params, uint64_t lamports, uint8_t *bump) {
  SolSignerSeed seeds[4] = {
      {(const uint8_t *)ESCROW_SEED, ESCROW_SEED_LEN},
      {params->ka[ACCOUNT_CREATOR].key->x, SIZE_PUBKEY},
      {params->data + AT_ESCROW_ID, 8},
      {bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  CreateAccountCpi create = {&params->ka[ACCOUNT_CREATOR], &params->ka[ACCOUNT_ESCROW], &params->ka[ACCOUNT_SYSTEM_PROGRAM],
                             &signer, params->program_id, lamports, sizeof(EscrowState)};
  return system_create_account(&create);
}

static bool parties_distinct(const SolPubkey *creator, const EscrowState *state) {
  return !SolPubkey_same(creator, &state->counterparty) && !SolPubkey_same(creator, &state->arbiter) &&
         !SolPubkey_same(&state->counterparty, &state->arbiter);
}

uint64_t escrow_create(SolParameters *params, bool with_milestones) {
  if (params->ka_num < 3) return ERR_NOT_ENOUGH_ACCOUNTS;
  SolAccountInfo *creator = &params->ka[ACCOUNT_CREATOR];
  SolAccountInfo *escrow = &params->ka[ACCOUNT_ESCROW];
  if (!creator->is_signer) return ERR_MISSING_SIGNATURE;
  if (!creator->is_writable || !escrow->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!is_system_program(params->ka[ACCOUNT_SYSTEM_PROGRAM].key)) return ERR_WRONG_SYSTEM_PROGRAM;

  /* Build the state in the heap, after the account table, and copy it in once the account exists. */
  EscrowState *state = (EscrowState *)(SOL_HEAP_START + 16 * sizeof(SolAccountInfo));
  uint64_t result = read_terms(params, with_milestones, state);
  if (result != SUCCESS) return result;
  if (!parties_distinct(creator->key, state)) return ERR_PARTIES_NOT_DISTINCT;
  int64_t now;
  if ((result = escrow_now(&now)) != SUCCESS) return result;
  if (state->deadline <= now) return ERR_DEADLINE_NOT_IN_FUTURE;
  state->created_at = now;
  sol_memcpy(&state->creator, creator->key, SIZE_PUBKEY);

  SolSignerSeed seeds[3] = {
      {(const uint8_t *)ESCROW_SEED, ESCROW_SEED_LEN},
      {creator->key->x, SIZE_PUBKEY},
      {params->data + AT_ESCROW_ID, 8}};
  if (!pda_matches(seeds, 3, params->program_id, escrow->key, &state->bump)) return ERR_WRONG_ESCROW_ADDRESS;
  if (!is_unused_account(escrow, params->program_id)) return ERR_ESCROW_EXISTS;

  uint64_t rent;
  if (!rent_exempt_minimum(sizeof(EscrowState), &rent)) return ERR_UNSUPPORTED_RENT;
  uint64_t total;
  if (!checked_add(rent, state->amount, &total)) return ERR_ARITHMETIC_OVERFLOW;
  if (*creator->lamports < total) return ERR_INSUFFICIENT_FUNDS;
  if ((result = create_escrow_account(params, total, &state->bump)) != SUCCESS) return result;

  sol_memcpy(escrow->data, state, sizeof(EscrowState));
  emit_created(escrow->key, state);
  return SUCCESS;
}
