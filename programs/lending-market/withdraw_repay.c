/* Lending-market program: withdraw and repay, the way out of supply and borrow.
 * The amount of either is the most that moves:
 * - withdraw burns supply shares for `amount` of the underlying (shares rounded up, against the withdrawer); an
 *   amount at or above what the owner's shares are worth burns them all and pays their whole worth (so a full
 *   withdrawal leaves no dust). It is refused (7228) when the owner's remaining collateral would no longer cover
 *   its borrows: the same health check as borrow, with the withdrawal already recorded.
 * - repay pays at most the debt with interest (borrow index): an amount above it pays exactly the debt and clears
 *   it; only what is owed leaves the owner's account. A partial repayment clears the scaled debt it pays for
 *   (rounded down, against the payer).
 * A position left with neither shares nor debt is dropped from the obligation (its slot is free again). */
#include "lending.h"

enum { WITHDRAW_FIRST_PAIR = 6 };

/* The owner's slot of the instruction's reserve, or `missing` when it has none. */
static uint64_t existing_slot(SolParameters *params, ObligationState **obligation, ObligationSlot **slot, uint64_t missing) {
  uint64_t result = obligation_load(params, ACCOUNT_OWNER, ACCOUNT_OBLIGATION, obligation);
  if (result != SUCCESS) return result;
  *slot = obligation_find_slot(*obligation, params->ka[ACCOUNT_RESERVE].key);
  return *slot == NULL ? missing : SUCCESS;
}

/* Shares to burn and base units to pay for a withdrawal of at most `amount`. */
static uint64_t withdrawal(const ReserveState *reserve, const ObligationSlot *slot, uint64_t amount, uint64_t *shares, uint64_t *paid) {
  uint64_t total;
  uint64_t result = reserve_total_assets(reserve, reserve->borrow_index, &total);
  if (result != SUCCESS) return result;
  uint64_t worth;
  if (!mul_div(slot->supply_shares, total, reserve->supply_shares, &worth)) return ERR_ARITHMETIC_OVERFLOW;
  if (amount >= worth) {
    *shares = slot->supply_shares;
    *paid = worth;
    return SUCCESS;
  }
  /* amount < worth <= slot shares x total / supply shares, so the rounded-up burn fits in the slot's shares */
  if (!mul_div_ceil(amount, reserve->supply_shares, total, shares)) return ERR_ARITHMETIC_OVERFLOW;
  *paid = amount;
  return SUCCESS;
}

uint64_t market_withdraw(SolParameters *params) {
  ReserveState *reserve;
  int64_t now;
  uint64_t amount;
  uint64_t result = market_load(params, WITHDRAW_FIRST_PAIR, &reserve, &now, &amount);
  if (result != SUCCESS) return result;
  ObligationState *obligation;
  ObligationSlot *slot;
  if ((result = existing_slot(params, &obligation, &slot, ERR_NOTHING_SUPPLIED)) != SUCCESS) return result;
  if (slot->supply_shares == 0 || reserve->supply_shares < slot->supply_shares) return ERR_NOTHING_SUPPLIED;

  uint64_t shares, paid;
  if ((result = withdrawal(reserve, slot, amount, &shares, &paid)) != SUCCESS) return result;
  if (paid > reserve->available) return ERR_INSUFFICIENT_LIQUIDITY;
  reserve->supply_shares -= shares;
  reserve->available -= paid;
  slot->supply_shares -= shares;
  /* the withdrawal counts in the check: one that would leave the borrows uncovered is refused as a whole */
  if ((result = obligation_check_health(params, obligation, WITHDRAW_FIRST_PAIR, now, ERR_WITHDRAW_UNHEALTHY)) != SUCCESS) return result;
  obligation_drop_empty_slots(obligation);
  if (paid == 0) return SUCCESS;

  SolAccountInfo *ka = params->ka;
  TokenCpi cpi = {&ka[ACCOUNT_VAULT], &ka[ACCOUNT_USER_TOKEN], &ka[ACCOUNT_RESERVE], &ka[ACCOUNT_TOKEN_PROGRAM], NULL};
  return reserve_signer_transfer(reserve, &cpi, paid);
}

uint64_t market_repay(SolParameters *params) {
  ReserveState *reserve;
  int64_t now;
  uint64_t amount;
  uint64_t result = market_load(params, 6, &reserve, &now, &amount);
  if (result != SUCCESS) return result;
  ObligationState *obligation;
  ObligationSlot *slot;
  if ((result = existing_slot(params, &obligation, &slot, ERR_NOTHING_BORROWED)) != SUCCESS) return result;
  if (slot->borrowed_scaled == 0 || reserve->borrowed_scaled < slot->borrowed_scaled) return ERR_NOTHING_BORROWED;

  uint64_t owed;
  if (!mul_div_ceil(slot->borrowed_scaled, reserve->borrow_index, INDEX_ONE, &owed)) return ERR_ARITHMETIC_OVERFLOW;
  uint64_t paid = amount < owed ? amount : owed;
  uint64_t cleared = slot->borrowed_scaled;
  if (paid < owed) {
    if (!mul_div(paid, INDEX_ONE, reserve->borrow_index, &cleared)) return ERR_ARITHMETIC_OVERFLOW;
    /* a repayment too small to clear one scaled unit would pay for nothing */
    if (cleared == 0) return ERR_ZERO_AMOUNT;
  }
  if (add_overflows(reserve->available, paid)) return ERR_ARITHMETIC_OVERFLOW;
  SolAccountInfo *ka = params->ka;
  TokenCpi cpi = {&ka[ACCOUNT_USER_TOKEN], &ka[ACCOUNT_VAULT], &ka[ACCOUNT_OWNER], &ka[ACCOUNT_TOKEN_PROGRAM], NULL};
  if ((result = token_transfer(&cpi, paid)) != SUCCESS) return result;
  reserve->borrowed_scaled -= cleared;
  reserve->available += paid;
  slot->borrowed_scaled -= cleared;
  obligation_drop_empty_slots(obligation);
  return SUCCESS;
}
