/* Lending-market program: supply and borrow. Supply moves the owner's tokens into the reserve's vault for
 * shares (1:1 into an empty reserve); borrow moves tokens out against the owner's obligation, then refuses
 * the whole instruction when the obligation would be unsafe (obligation_check_health). */
#include "lending.h"

#define AMOUNT_DATA_LEN 9

enum { SUPPLY_SYSTEM_PROGRAM = 6, BORROW_FIRST_PAIR = 6 };

uint64_t market_load(SolParameters *params, uint64_t accounts, ReserveState **reserve, int64_t *now, uint64_t *amount) {
  if (params->ka_num < accounts) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != AMOUNT_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  if (!params->ka[ACCOUNT_OWNER].is_signer) return ERR_MISSING_SIGNATURE;
  uint64_t result = reserve_load(params, ACCOUNT_RESERVE, reserve);
  if (result != SUCCESS) return result;
  if (!params->ka[ACCOUNT_RESERVE].is_writable || !params->ka[ACCOUNT_VAULT].is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!SolPubkey_same(params->ka[ACCOUNT_VAULT].key, &(*reserve)->vault)) return ERR_BAD_VAULT;
  if (!is_token_program(params->ka[ACCOUNT_TOKEN_PROGRAM].key)) return ERR_WRONG_TOKEN_PROGRAM;
  if ((*reserve)->flash_outstanding != 0) return ERR_FLASH_LOAN_ACTIVE;
  if (!clock_unix_timestamp(now)) return ERR_INVALID_INSTRUCTION;
  if ((result = reserve_accrue(*reserve, *now)) != SUCCESS) return result;
  *amount = sol_read_u64(params->data + 1);
  return *amount == 0 ? ERR_ZERO_AMOUNT : SUCCESS;
}

uint64_t market_supply(SolParameters *params) {
  ReserveState *reserve;
  int64_t now;
  uint64_t amount;
  uint64_t result = market_load(params, 7, &reserve, &now, &amount);
  if (result != SUCCESS) return result;
  ObligationState *obligation;
  if ((result = obligation_load_or_create(params, ACCOUNT_OWNER, ACCOUNT_OBLIGATION, SUPPLY_SYSTEM_PROGRAM, &obligation)) != SUCCESS) return result;
  ObligationSlot *slot;
  if ((result = obligation_slot(obligation, params->ka[ACCOUNT_RESERVE].key, &slot)) != SUCCESS) return result;

  uint64_t shares = amount;
  if (reserve->supply_shares != 0) {
    uint64_t total;
    if ((result = reserve_total_assets(reserve, reserve->borrow_index, &total)) != SUCCESS) return result;
    if (!mul_div(amount, reserve->supply_shares, total, &shares)) return ERR_ARITHMETIC_OVERFLOW;
  }
  if (shares == 0) return ERR_ZERO_AMOUNT;
  if (add_overflows(reserve->supply_shares, shares) || add_overflows(reserve->available, amount)) return ERR_ARITHMETIC_OVERFLOW;
  SolAccountInfo *ka = params->ka;
  TokenCpi cpi = {&ka[ACCOUNT_USER_TOKEN], &ka[ACCOUNT_VAULT], &ka[ACCOUNT_OWNER], &ka[ACCOUNT_TOKEN_PROGRAM], NULL};
  if ((result = token_transfer(&cpi, amount)) != SUCCESS) return result;
  reserve->supply_shares += shares;
  reserve->available += amount;
  slot->supply_shares += shares;
  return SUCCESS;
}

uint64_t market_borrow(SolParameters *params) {
  ReserveState *reserve;
  int64_t now;
  uint64_t amount;
  uint64_t result = market_load(params, 6, &reserve, &now, &amount);
  if (result != SUCCESS) return result;
  if (amount > reserve->available) return ERR_INSUFFICIENT_LIQUIDITY;
  ObligationState *obligation;
  if ((result = obligation_load(params, ACCOUNT_OWNER, ACCOUNT_OBLIGATION, &obligation)) != SUCCESS) return result;
  ObligationSlot *slot;
  if ((result = obligation_slot(obligation, params->ka[ACCOUNT_RESERVE].key, &slot)) != SUCCESS) return result;

  uint64_t scaled;
  if (!mul_div_ceil(amount, INDEX_ONE, reserve->borrow_index, &scaled)) return ERR_ARITHMETIC_OVERFLOW;
  if (add_overflows(reserve->borrowed_scaled, scaled) || add_overflows(slot->borrowed_scaled, scaled)) return ERR_ARITHMETIC_OVERFLOW;
  reserve->borrowed_scaled += scaled;
  reserve->available -= amount;
  slot->borrowed_scaled += scaled;
  /* the new debt counts in the check: a borrow that would leave the account unsafe is refused as a whole */
  if ((result = obligation_check_health(params, obligation, BORROW_FIRST_PAIR, now, ERR_UNHEALTHY)) != SUCCESS) return result;

  SolAccountInfo *ka = params->ka;
  TokenCpi cpi = {&ka[ACCOUNT_VAULT], &ka[ACCOUNT_USER_TOKEN], &ka[ACCOUNT_RESERVE], &ka[ACCOUNT_TOKEN_PROGRAM], NULL};
  return reserve_signer_transfer(reserve, &cpi, amount);
}
