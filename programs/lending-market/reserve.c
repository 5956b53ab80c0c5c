/* Lending-market program: reserves. A reserve (PDA ["reserve", mint]) records one mint's market: its vault
 * (the cash, a token account owned by the reserve), its Pyth oracle, the collateral factor, the borrow rate
 * and index (interest), and the supply shares. Suppliers own shares of cash + borrows, so interest paid by
 * borrowers raises what each share is worth. */
#include "lending.h"

#define INIT_DATA_LEN 7

enum { INIT_AUTHORITY = 0, INIT_RESERVE = 1, INIT_MINT = 2, INIT_VAULT = 3, INIT_ORACLE = 4, INIT_SYSTEM_PROGRAM = 5 };

/* rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ: the Pyth receiver program, owner of PriceUpdateV2 accounts */
static const uint8_t PYTH_RECEIVER_ID[SIZE_PUBKEY] = {12,  183, 250, 187, 82,  247, 166, 72,  187, 91,  49,
                                                      125, 154, 1,   139, 144, 87,  203, 2,   71,  116, 250,
                                                      254, 1,   230, 196, 223, 152, 204, 56,  88,  129};
static const uint8_t PRICE_UPDATE_V2_DISCRIMINATOR[8] = {34, 241, 35, 99, 157, 126, 244, 205};
/* fully verified updates only: feed id at 41, price i64 at 73, exponent i32 at 89, publish time i64 at 93 */
#define PRICE_AT 73
#define EXPONENT_AT 89
#define PUBLISH_TIME_AT 93
/* The oldest price (seconds before the Clock sysvar's time) a health check values with. A backstop for
 * transactions built anywhere: the service's own builders refuse at ORACLE_MAX_PRICE_AGE_SECONDS (60) first. */
#define MAX_PRICE_AGE_SECONDS 120
#define PRICE_UPDATE_MIN_LEN 133

uint64_t reserve_load(const SolParameters *params, uint64_t index, ReserveState **state) {
  if (params->ka_num <= index) return ERR_NOT_ENOUGH_ACCOUNTS;
  ReserveState *loaded = program_account_state(&params->ka[index], params->program_id, sizeof(ReserveState), RESERVE_ACCOUNT_TAG);
  if (loaded == NULL) return ERR_NOT_A_RESERVE;
  *state = loaded;
  return SUCCESS;
}

uint64_t reserve_current_index(const ReserveState *reserve, int64_t now, uint64_t *index) {
  *index = reserve->borrow_index;
  if (now <= reserve->last_accrual_ts || reserve->borrowed_scaled == 0) return SUCCESS;
  uint64_t elapsed = (uint64_t)(now - reserve->last_accrual_ts);
  uint64_t growth;
  if (elapsed > SECONDS_PER_YEAR * 100) return ERR_ARITHMETIC_OVERFLOW;
  if (!mul_div(reserve->borrow_index, reserve->borrow_rate_bps * elapsed, BPS_DENOMINATOR * SECONDS_PER_YEAR, &growth)) return ERR_ARITHMETIC_OVERFLOW;
  if (add_overflows(*index, growth)) return ERR_ARITHMETIC_OVERFLOW;
  *index += growth;
  return SUCCESS;
}

uint64_t reserve_accrue(ReserveState *reserve, int64_t now) {
  uint64_t index;
  uint64_t result = reserve_current_index(reserve, now, &index);
  if (result != SUCCESS) return result;
  reserve->borrow_index = index;
  if (now > reserve->last_accrual_ts) reserve->last_accrual_ts = now;
  return SUCCESS;
}

/* What the suppliers' shares are worth in base units: cash + borrows (with interest at `index`). */
uint64_t reserve_total_assets(const ReserveState *reserve, uint64_t index, uint64_t *total) {
  uint64_t cash = reserve->available;
  uint64_t borrows;
  if (!mul_div(reserve->borrowed_scaled, index, INDEX_ONE, &borrows)) return ERR_ARITHMETIC_OVERFLOW;
  if (add_overflows(cash, borrows)) return ERR_ARITHMETIC_OVERFLOW;
  *total = cash + borrows;
  return SUCCESS;
}

/* A transfer out of the reserve's vault, the reserve PDA signing. */
uint64_t reserve_signer_transfer(ReserveState *reserve, const TokenCpi *cpi, uint64_t amount) {
  SolSignerSeed seeds[3] = {{(const uint8_t *)RESERVE_SEED, RESERVE_SEED_LEN}, {reserve->mint.x, SIZE_PUBKEY}, {&reserve->bump, 1}};
  SolSignerSeeds signer = {seeds, 3};
  TokenCpi signed_cpi = {cpi->first, cpi->second, cpi->authority, cpi->token_program, &signer};
  return token_transfer(&signed_cpi, amount);
}

static bool is_price_update(const SolAccountInfo *oracle) {
  return sol_memeq(oracle->owner->x, PYTH_RECEIVER_ID, SIZE_PUBKEY) && oracle->data_len >= PRICE_UPDATE_MIN_LEN &&
         sol_memeq(oracle->data, PRICE_UPDATE_V2_DISCRIMINATOR, 8) && oracle->data[40] == 1;
}

uint64_t oracle_value(const SolAccountInfo *oracle, const ReserveState *reserve, uint64_t amount, uint64_t *value) {
  if (!SolPubkey_same(oracle->key, &reserve->oracle) || !is_price_update(oracle)) return ERR_BAD_ORACLE;
  int64_t price = (int64_t)sol_read_u64(oracle->data + PRICE_AT);
  int32_t exponent = (int32_t)(uint32_t)sol_read_u64(oracle->data + EXPONENT_AT);
  if (price <= 0 || exponent > 0 || exponent < -18) return ERR_BAD_ORACLE;
  int64_t now;
  if (!clock_unix_timestamp(&now)) return ERR_INVALID_INSTRUCTION;
  if (now - (int64_t)sol_read_u64(oracle->data + PUBLISH_TIME_AT) > MAX_PRICE_AGE_SECONDS) return ERR_STALE_PRICE;
  /* amount / 10^decimals * price * 10^exponent * 10^VALUE_DECIMALS */
  int64_t scale = (int64_t)reserve->decimals - exponent - VALUE_DECIMALS;
  if (scale < 0 || scale > 19) return ERR_BAD_ORACLE;
  uint64_t divisor = 1;
  for (int64_t i = 0; i < scale; i++) divisor *= 10;
  if (!mul_div(amount, (uint64_t)price, divisor, value)) return ERR_ARITHMETIC_OVERFLOW;
  return SUCCESS;
}

static uint64_t check_init_accounts(SolParameters *params, uint8_t *bump) {
  SolAccountInfo *authority = &params->ka[INIT_AUTHORITY];
  SolAccountInfo *reserve = &params->ka[INIT_RESERVE];
  const SolAccountInfo *mint = &params->ka[INIT_MINT];
  if (!authority->is_signer) return ERR_MISSING_SIGNATURE;
  if (!authority->is_writable || !reserve->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!is_system_program(params->ka[INIT_SYSTEM_PROGRAM].key)) return ERR_WRONG_SYSTEM_PROGRAM;
  SolSignerSeed seeds[2] = {{(const uint8_t *)RESERVE_SEED, RESERVE_SEED_LEN}, {mint->key->x, SIZE_PUBKEY}};
  if (!pda_matches(seeds, 2, params->program_id, reserve->key, bump)) return ERR_WRONG_RESERVE_ADDRESS;
  if (!is_unused_account(reserve, params->program_id)) return ERR_RESERVE_EXISTS;
  if (!is_initialized_mint(mint)) return ERR_BAD_MINT;
  if (!is_vault_account(&params->ka[INIT_VAULT], mint->key, reserve->key)) return ERR_BAD_VAULT;
  if (!is_price_update(&params->ka[INIT_ORACLE])) return ERR_BAD_ORACLE;
  return SUCCESS;
}

uint64_t reserve_init(SolParameters *params) {
  if (params->ka_num < 6) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != INIT_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  uint16_t collateral_factor_bps = sol_read_u16(params->data + 1);
  uint16_t borrow_rate_bps = sol_read_u16(params->data + 3);
  uint16_t flash_fee_bps = sol_read_u16(params->data + 5);
  if (collateral_factor_bps > MAX_COLLATERAL_FACTOR_BPS || flash_fee_bps > MAX_FLASH_FEE_BPS) return ERR_BAD_PARAMETER;
  uint8_t bump;
  uint64_t result = check_init_accounts(params, &bump);
  if (result != SUCCESS) return result;
  int64_t now;
  if (!clock_unix_timestamp(&now)) return ERR_INVALID_INSTRUCTION;

  SolAccountInfo *reserve = &params->ka[INIT_RESERVE];
  const SolAccountInfo *mint = &params->ka[INIT_MINT];
  SolSignerSeed seeds[3] = {{(const uint8_t *)RESERVE_SEED, RESERVE_SEED_LEN}, {mint->key->x, SIZE_PUBKEY}, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 3};
  CreateCpi create = {&params->ka[INIT_AUTHORITY], reserve, &params->ka[INIT_SYSTEM_PROGRAM], &signer, sizeof(ReserveState)};
  result = create_program_account(params, &create);
  if (result != SUCCESS) return result;

  ReserveState *state = (ReserveState *)reserve->data;
  sol_memset(state, 0, sizeof(ReserveState));
  state->account_tag = RESERVE_ACCOUNT_TAG;
  state->bump = bump;
  state->decimals = mint_decimals(mint);
  state->collateral_factor_bps = collateral_factor_bps;
  state->borrow_rate_bps = borrow_rate_bps;
  state->flash_fee_bps = flash_fee_bps;
  sol_memcpy(&state->mint, mint->key, SIZE_PUBKEY);
  sol_memcpy(&state->vault, params->ka[INIT_VAULT].key, SIZE_PUBKEY);
  sol_memcpy(&state->oracle, params->ka[INIT_ORACLE].key, SIZE_PUBKEY);
  sol_memcpy(&state->authority, params->ka[INIT_AUTHORITY].key, SIZE_PUBKEY);
  state->borrow_index = INDEX_ONE;
  state->last_accrual_ts = now;
  return SUCCESS;
}
