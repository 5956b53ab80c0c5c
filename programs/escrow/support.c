/* Escrow program: checks and arithmetic shared by every instruction. */
#include "escrow.h"

/* Account `index` must be a writable escrow account of this program holding a valid state. */
uint64_t escrow_load(const SolParameters *params, uint64_t index, EscrowState **state) {
  if (params->ka_num <= index) return ERR_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *account = &params->ka[index];
  if (!SolPubkey_same(account->owner, params->program_id)) return ERR_NOT_AN_ESCROW;
  if (account->data_len != sizeof(EscrowState)) return ERR_NOT_AN_ESCROW;
  EscrowState *loaded = (EscrowState *)account->data;
  if (loaded->account_tag != ESCROW_ACCOUNT_TAG) return ERR_NOT_AN_ESCROW;
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

/* floor(gross * fee_bps / 10000) without a 128-bit product. */
uint64_t escrow_fee(uint64_t gross, uint16_t fee_bps) {
  return (gross / BPS_DENOMINATOR) * fee_bps + ((gross % BPS_DENOMINATOR) * fee_bps) / BPS_DENOMINATOR;
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

/* Rent-exempt minimum = (128 + data_len) * lamports_per_byte_year * exemption_threshold.
 * The threshold is an f64 (2.0 on every cluster); BPF has no floating point, so only a
 * whole-number threshold is accepted, decoded from its IEEE-754 bits. */
uint64_t escrow_rent_exempt_minimum(uint64_t data_len, uint64_t *lamports) {
  SolRent rent;
  if (sol_get_rent_sysvar(&rent) != SUCCESS) return ERR_UNSUPPORTED_RENT;
  uint64_t bits = rent.exemption_threshold_f64_bits;
  uint64_t exponent = (bits >> 52) & 0x7ff;
  uint64_t mantissa = (bits & ((1UL << 52) - 1)) | (1UL << 52);
  if ((bits >> 63) != 0 || exponent < 1023 || exponent > 1023 + 8) return ERR_UNSUPPORTED_RENT;
  uint64_t shift = 1075 - exponent; /* threshold = mantissa >> shift when it is a whole number */
  if ((mantissa & ((1UL << shift) - 1)) != 0) return ERR_UNSUPPORTED_RENT;
  uint64_t threshold = mantissa >> shift; /* < 2^9 by the exponent bound */
  /* Bounds instead of overflow checks (a checked 64-bit multiply needs a 128-bit libcall):
   * (128 + data_len) < 2^15, lamports per byte-year < 2^32 and threshold < 2^9 keep the product below 2^64. */
  if (data_len >= (1UL << 14) || rent.lamports_per_byte_year >= (1UL << 32)) return ERR_UNSUPPORTED_RENT;
  uint64_t minimum = (128 + data_len) * rent.lamports_per_byte_year * threshold;
  *lamports = minimum;
  return SUCCESS;
}
