/* Lending-market program: flash loans. flash_borrow lends a reserve's cash for the rest of the transaction
 * and refuses unless a LATER top-level instruction of this program is a flash_repay of the same reserve for at
 * least amount + fee (read from the Instructions sysvar). It records what is owed; flash_repay pays it back and
 * clears it, and supply/borrow are refused on the reserve while a loan is in flight. */
#include "lending.h"

#define AMOUNT_DATA_LEN 9

enum { LOAN_RESERVE = 0, LOAN_VAULT = 1, LOAN_DESTINATION = 2, LOAN_TOKEN_PROGRAM = 3, LOAN_INSTRUCTIONS = 4 };
enum { REPAY_OWNER = 0, REPAY_RESERVE = 1, REPAY_VAULT = 2, REPAY_SOURCE = 3, REPAY_TOKEN_PROGRAM = 4 };

/* Sysvar1nstructions1111111111111111111111111 */
static const uint8_t INSTRUCTIONS_SYSVAR_ID[SIZE_PUBKEY] = {6,   167, 213, 23,  24,  123, 209, 102, 53, 218, 212,
                                                            4,   85,  253, 194, 192, 193, 36,  198, 143, 33, 86,
                                                            117, 165, 219, 186, 203, 95,  8,   0,   0,   0};

/* fee = ceil(amount * fee_bps / 10000) */
static bool flash_fee(uint64_t amount, uint16_t fee_bps, uint64_t *fee) {
  return mul_div_ceil(amount, fee_bps, BPS_DENOMINATOR, fee);
}

/* Instructions sysvar: u16 count, u16 offset per instruction, then each instruction as u16 account count,
 * (u8 flags, key [32]) per account, program id [32], u16 data length, data; the current index is the last u16. */
static bool repays_later(const SolAccountInfo *sysvar, const SolPubkey *program_id, const SolPubkey *reserve, uint64_t owed) {
  const uint8_t *d = sysvar->data;
  uint64_t len = sysvar->data_len;
  if (len < 4) return false;
  uint64_t count = sol_read_u16(d);
  uint64_t current = sol_read_u16(d + len - 2);
  if (2 + 2 * count > len) return false;
  for (uint64_t i = current + 1; i < count; i++) {
    uint64_t at = sol_read_u16(d + 2 + 2 * i);
    if (at + 2 > len) return false;
    uint64_t accounts = sol_read_u16(d + at);
    uint64_t program_at = at + 2 + 33 * accounts;
    if (program_at + 34 > len) return false;
    if (!sol_memeq(d + program_at, program_id->x, SIZE_PUBKEY)) continue;
    uint64_t data_len = sol_read_u16(d + program_at + 32);
    const uint8_t *data = d + program_at + 34;
    if (program_at + 34 + data_len > len) return false;
    if (data_len != AMOUNT_DATA_LEN || data[0] != IX_FLASH_REPAY || accounts <= REPAY_RESERVE_ACCOUNT) continue;
    if (!sol_memeq(d + at + 2 + 33 * REPAY_RESERVE_ACCOUNT + 1, reserve->x, SIZE_PUBKEY)) continue;
    if (sol_read_u64(data + 1) >= owed) return true;
  }
  return false;
}

static uint64_t load_for_flash(SolParameters *params, uint64_t reserve_index, uint64_t vault_index, uint64_t token_index, ReserveState **reserve) {
  if (params->data_len != AMOUNT_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  uint64_t result = reserve_load(params, reserve_index, reserve);
  if (result != SUCCESS) return result;
  if (!params->ka[reserve_index].is_writable || !params->ka[vault_index].is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!SolPubkey_same(params->ka[vault_index].key, &(*reserve)->vault)) return ERR_BAD_VAULT;
  if (!is_token_program(params->ka[token_index].key)) return ERR_WRONG_TOKEN_PROGRAM;
  return SUCCESS;
}

uint64_t flash_borrow(SolParameters *params) {
  if (params->ka_num < 5) return ERR_NOT_ENOUGH_ACCOUNTS;
  ReserveState *reserve;
  uint64_t result = load_for_flash(params, LOAN_RESERVE, LOAN_VAULT, LOAN_TOKEN_PROGRAM, &reserve);
  if (result != SUCCESS) return result;
  if (!sol_memeq(params->ka[LOAN_INSTRUCTIONS].key->x, INSTRUCTIONS_SYSVAR_ID, SIZE_PUBKEY)) return ERR_WRONG_INSTRUCTIONS_SYSVAR;
  if (reserve->flash_outstanding != 0) return ERR_FLASH_LOAN_ACTIVE;
  uint64_t amount = sol_read_u64(params->data + 1);
  if (amount == 0) return ERR_ZERO_AMOUNT;
  if (amount > reserve->available) return ERR_INSUFFICIENT_LIQUIDITY;
  uint64_t fee;
  if (!flash_fee(amount, reserve->flash_fee_bps, &fee) || add_overflows(amount, fee)) return ERR_ARITHMETIC_OVERFLOW;
  if (!repays_later(&params->ka[LOAN_INSTRUCTIONS], params->program_id, params->ka[LOAN_RESERVE].key, amount + fee)) {
    sol_log("lending-market: flash loan refused, no later flash_repay of this reserve for amount + fee");
    return ERR_FLASH_NOT_REPAID;
  }
  reserve->flash_outstanding = amount + fee;
  reserve->available -= amount;
  SolAccountInfo *ka = params->ka;
  TokenCpi cpi = {&ka[LOAN_VAULT], &ka[LOAN_DESTINATION], &ka[LOAN_RESERVE], &ka[LOAN_TOKEN_PROGRAM], NULL};
  return reserve_signer_transfer(reserve, &cpi, amount);
}

uint64_t flash_repay(SolParameters *params) {
  if (params->ka_num < 5) return ERR_NOT_ENOUGH_ACCOUNTS;
  ReserveState *reserve;
  uint64_t result = load_for_flash(params, REPAY_RESERVE, REPAY_VAULT, REPAY_TOKEN_PROGRAM, &reserve);
  if (result != SUCCESS) return result;
  if (!params->ka[REPAY_OWNER].is_signer) return ERR_MISSING_SIGNATURE;
  if (reserve->flash_outstanding == 0) return ERR_NO_FLASH_LOAN;
  uint64_t amount = sol_read_u64(params->data + 1);
  if (amount < reserve->flash_outstanding) return ERR_REPAY_TOO_SMALL;
  if (add_overflows(reserve->available, amount)) return ERR_ARITHMETIC_OVERFLOW;
  SolAccountInfo *ka = params->ka;
  TokenCpi cpi = {&ka[REPAY_SOURCE], &ka[REPAY_VAULT], &ka[REPAY_OWNER], &ka[REPAY_TOKEN_PROGRAM], NULL};
  if ((result = token_transfer(&cpi, amount)) != SUCCESS) return result;
  /* the fee (and any excess) stays in the reserve: it raises every supplier's share */
  reserve->available += amount;
  reserve->flash_outstanding = 0;
  return SUCCESS;
}
