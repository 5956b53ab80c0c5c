/* Lending-market program: obligations. One per owner (PDA ["obligation", owner]): up to four positions, each a
 * reserve with the owner's supply shares and scaled debt. The health check values every position at its
 * reserve's oracle price: the borrowed value must not exceed the sum of supplied value x collateral factor. */
#include "lending.h"

uint64_t obligation_load(const SolParameters *params, uint64_t owner_index, uint64_t obligation_index, ObligationState **state) {
  const SolAccountInfo *owner = &params->ka[owner_index];
  const SolAccountInfo *account = &params->ka[obligation_index];
  if (!account->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  ObligationState *loaded = program_account_state(account, params->program_id, sizeof(ObligationState), OBLIGATION_ACCOUNT_TAG);
  if (loaded == NULL || !SolPubkey_same(&loaded->owner, owner->key)) return ERR_NOT_AN_OBLIGATION;
  *state = loaded;
  return SUCCESS;
}

uint64_t obligation_load_or_create(SolParameters *params, uint64_t owner_index, uint64_t obligation_index,
                                   uint64_t system_index, ObligationState **state) {
  SolAccountInfo *owner = &params->ka[owner_index];
  SolAccountInfo *account = &params->ka[obligation_index];
  if (*account->lamports != 0 || account->data_len != 0) return obligation_load(params, owner_index, obligation_index, state);
  if (!account->is_writable || !owner->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!is_system_program(params->ka[system_index].key)) return ERR_WRONG_SYSTEM_PROGRAM;
  uint8_t bump;
  SolSignerSeed seeds[3] = {{(const uint8_t *)OBLIGATION_SEED, OBLIGATION_SEED_LEN}, {owner->key->x, SIZE_PUBKEY}, {&bump, 1}};
  if (!pda_matches(seeds, 2, params->program_id, account->key, &bump)) return ERR_WRONG_OBLIGATION_ADDRESS;
  SolSignerSeeds signer = {seeds, 3};
  CreateCpi create = {owner, account, &params->ka[system_index], &signer, sizeof(ObligationState)};
  uint64_t result = create_program_account(params, &create);
  if (result != SUCCESS) return result;
  ObligationState *created = (ObligationState *)account->data;
  sol_memset(created, 0, sizeof(ObligationState));
  created->account_tag = OBLIGATION_ACCOUNT_TAG;
  created->bump = bump;
  sol_memcpy(&created->owner, owner->key, SIZE_PUBKEY);
  *state = created;
  return SUCCESS;
}

/* The owner's slot of `reserve`, taking the next free one when it has none. */
uint64_t obligation_slot(ObligationState *obligation, const SolPubkey *reserve, ObligationSlot **slot) {
  for (uint64_t i = 0; i < obligation->slot_count; i++) {
    if (SolPubkey_same(&obligation->slots[i].reserve, reserve)) {
      *slot = &obligation->slots[i];
      return SUCCESS;
    }
  }
  if (obligation->slot_count >= MAX_OBLIGATION_SLOTS) return ERR_OBLIGATION_FULL;
  ObligationSlot *fresh = &obligation->slots[obligation->slot_count];
  sol_memset(fresh, 0, sizeof(ObligationSlot));
  sol_memcpy(&fresh->reserve, reserve, SIZE_PUBKEY);
  obligation->slot_count += 1;
  *slot = fresh;
  return SUCCESS;
}

ObligationSlot *obligation_find_slot(ObligationState *obligation, const SolPubkey *reserve) {
  for (uint64_t i = 0; i < obligation->slot_count; i++) {
    if (SolPubkey_same(&obligation->slots[i].reserve, reserve)) return &obligation->slots[i];
  }
  return NULL;
}

void obligation_drop_empty_slots(ObligationState *obligation) {
  uint64_t kept = 0;
  for (uint64_t i = 0; i < obligation->slot_count; i++) {
    const ObligationSlot *slot = &obligation->slots[i];
    if (slot->supply_shares == 0 && slot->borrowed_scaled == 0) continue;
    if (kept != i) sol_memcpy(&obligation->slots[kept], slot, sizeof(ObligationSlot));
    kept++;
  }
  for (uint64_t i = kept; i < obligation->slot_count; i++) sol_memset(&obligation->slots[i], 0, sizeof(ObligationSlot));
  obligation->slot_count = (uint8_t)kept;
}

/* One position's contribution: supplied value x collateral factor, and the debt's value. Unpriced (both 0)
 * when the obligation owes nothing: no price can make it unhealthy, so a stale one must not block it. */
static uint64_t position_values(const SolParameters *params, const ObligationSlot *slot, uint64_t pair, int64_t now, bool priced,
                                uint64_t *collateral, uint64_t *debt) {
  const SolAccountInfo *reserve_account = &params->ka[pair];
  const SolAccountInfo *oracle = &params->ka[pair + 1];
  if (!SolPubkey_same(reserve_account->key, &slot->reserve)) return ERR_MISSING_POSITION_ACCOUNTS;
  ReserveState *reserve;
  uint64_t result = reserve_load(params, pair, &reserve);
  if (result != SUCCESS) return result;
  uint64_t index;
  if ((result = reserve_current_index(reserve, now, &index)) != SUCCESS) return result;
  uint64_t supplied = 0, owed = 0;
  if (slot->supply_shares != 0) {
    uint64_t total;
    if ((result = reserve_total_assets(reserve, index, &total)) != SUCCESS) return result;
    if (!mul_div(slot->supply_shares, total, reserve->supply_shares, &supplied)) return ERR_ARITHMETIC_OVERFLOW;
  }
  if (slot->borrowed_scaled != 0 && !mul_div_ceil(slot->borrowed_scaled, index, INDEX_ONE, &owed)) return ERR_ARITHMETIC_OVERFLOW;
  uint64_t supplied_value = 0, owed_value = 0;
  if (!priced) supplied = owed = 0;
  if (supplied != 0 && (result = oracle_value(oracle, reserve, supplied, &supplied_value)) != SUCCESS) return result;
  if (owed != 0 && (result = oracle_value(oracle, reserve, owed, &owed_value)) != SUCCESS) return result;
  uint64_t weighted;
  if (!mul_div(supplied_value, reserve->collateral_factor_bps, BPS_DENOMINATOR, &weighted)) return ERR_ARITHMETIC_OVERFLOW;
  *collateral = weighted;
  *debt = owed_value;
  return SUCCESS;
}

uint64_t obligation_check_health(const SolParameters *params, const ObligationState *obligation, uint64_t first_pair, int64_t now,
                                 uint64_t refusal) {
  if (params->ka_num < first_pair + 2 * (uint64_t)obligation->slot_count) return ERR_MISSING_POSITION_ACCOUNTS;
  bool indebted = false;
  for (uint64_t i = 0; i < obligation->slot_count; i++) indebted = indebted || obligation->slots[i].borrowed_scaled != 0;
  uint64_t collateral_total = 0, debt_total = 0;
  for (uint64_t i = 0; i < obligation->slot_count; i++) {
    uint64_t collateral, debt;
    uint64_t result = position_values(params, &obligation->slots[i], first_pair + 2 * i, now, indebted, &collateral, &debt);
    if (result != SUCCESS) return result;
    if (add_overflows(collateral_total, collateral) || add_overflows(debt_total, debt)) return ERR_ARITHMETIC_OVERFLOW;
    collateral_total += collateral;
    debt_total += debt;
  }
  if (debt_total > collateral_total) {
    if (refusal == ERR_WITHDRAW_UNHEALTHY) {
      sol_log("lending-market: withdrawal refused, borrowed value would exceed the remaining collateral value x factor");
    } else {
      sol_log("lending-market: borrow refused, borrowed value would exceed collateral value x factor");
    }
    sol_log_64(collateral_total, debt_total, 0, 0, 0);
    return refusal;
  }
  return SUCCESS;
}
