/* Liquid-staking program: init_pool, add_rewards and loading the pool. The pool PDA (seeds "stake_pool") holds
 * the staked SOL as its own lamports and is the mint authority of the LST mint, which the client creates
 * beforehand (fresh, 9 decimals, no freeze authority) and the program checks. */
#include "staking.h"

#define INIT_DATA_LEN 3
#define REWARDS_DATA_LEN 9

enum { ACCOUNT_AUTHORITY = 0, ACCOUNT_POOL = 1, ACCOUNT_LST_MINT = 2, ACCOUNT_SYSTEM_PROGRAM = 3 };
enum { REWARDS_AUTHORITY = 0, REWARDS_POOL = 1, REWARDS_SYSTEM_PROGRAM = 2 };

uint64_t pool_load(const SolParameters *params, uint64_t index, StakePoolState **state) {
  if (params->ka_num <= index) return ERR_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *account = &params->ka[index];
  if (!SolPubkey_same(account->owner, params->program_id)) return ERR_NOT_A_POOL;
  if (account->data_len != sizeof(StakePoolState)) return ERR_NOT_A_POOL;
  StakePoolState *loaded = (StakePoolState *)account->data;
  if (loaded->account_tag != STAKE_POOL_ACCOUNT_TAG) return ERR_NOT_A_POOL;
  if (!account->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  *state = loaded;
  return SUCCESS;
}

/* Rent-exempt minimum = (128 + data_len) * lamports_per_byte_year * threshold (a whole-number f64). */
static uint64_t rent_exempt_minimum(uint64_t data_len, uint64_t *lamports) {
  SolRent rent;
  if (sol_get_rent_sysvar(&rent) != SUCCESS) return ERR_UNSUPPORTED_RENT;
  uint64_t bits = rent.exemption_threshold_f64_bits;
  uint64_t exponent = (bits >> 52) & 0x7ff;
  uint64_t mantissa = (bits & ((1UL << 52) - 1)) | (1UL << 52);
  if ((bits >> 63) != 0 || exponent < 1023 || exponent > 1023 + 8) return ERR_UNSUPPORTED_RENT;
  uint64_t shift = 1075 - exponent;
  if ((mantissa & ((1UL << shift) - 1)) != 0) return ERR_UNSUPPORTED_RENT;
  uint64_t threshold = mantissa >> shift;
  if (data_len >= (1UL << 14) || rent.lamports_per_byte_year >= (1UL << 32)) return ERR_UNSUPPORTED_RENT;
  *lamports = (128 + data_len) * rent.lamports_per_byte_year * threshold;
  return SUCCESS;
}

static bool option_none(const uint8_t *tag) {
  return tag[0] == 0 && tag[1] == 0 && tag[2] == 0 && tag[3] == 0;
}

/* The LST mint: a fresh SPL mint whose authority is the pool, 9 decimals (SOL's), no supply, no freeze authority. */
static bool is_lst_mint(const SolAccountInfo *mint, const SolPubkey *pool) {
  if (!is_token_program(mint->owner) || mint->data_len != MINT_SIZE) return false;
  const uint8_t *d = mint->data;
  return d[0] == 1 && d[1] == 0 && d[2] == 0 && d[3] == 0 && sol_memeq(d + 4, pool->x, SIZE_PUBKEY) &&
         sol_read_u64(d + 36) == 0 && d[44] == LST_DECIMALS && d[45] == 1 && option_none(d + 46);
}

static uint64_t create_pool_account(SolParameters *params, uint64_t lamports, uint8_t *bump) {
  SolAccountInfo *payer = &params->ka[ACCOUNT_AUTHORITY];
  SolAccountInfo *pool = &params->ka[ACCOUNT_POOL];
  uint8_t data[52];
  sol_memset(data, 0, sizeof(data));
  sol_write_u64(data + 4, lamports);
  sol_write_u64(data + 12, sizeof(StakePoolState));
  sol_memcpy(data + 20, params->program_id, SIZE_PUBKEY);
  SolAccountMeta metas[2] = {{payer->key, true, true}, {pool->key, true, true}};
  SolInstruction instruction = {params->ka[ACCOUNT_SYSTEM_PROGRAM].key, metas, 2, data, sizeof(data)};
  SolSignerSeed seeds[2] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  return sol_invoke_signed_c(&instruction, params->ka, 2, &signer, 1);
}

uint64_t pool_init(SolParameters *params) {
  if (params->ka_num < 4) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != INIT_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  SolAccountInfo *authority = &params->ka[ACCOUNT_AUTHORITY];
  SolAccountInfo *pool = &params->ka[ACCOUNT_POOL];
  if (!authority->is_signer) return ERR_MISSING_SIGNATURE;
  if (!authority->is_writable || !pool->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!is_system_program(params->ka[ACCOUNT_SYSTEM_PROGRAM].key)) return ERR_WRONG_SYSTEM_PROGRAM;
  uint16_t fee_bps = sol_read_u16(params->data + 1);
  if (fee_bps > MAX_FEE_BPS) return ERR_FEE_TOO_HIGH;

  SolSignerSeed seeds[1] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}};
  SolPubkey expected;
  uint8_t bump;
  if (sol_try_find_program_address(seeds, 1, params->program_id, &expected, &bump) != SUCCESS) return ERR_WRONG_POOL_ADDRESS;
  if (!SolPubkey_same(&expected, pool->key)) return ERR_WRONG_POOL_ADDRESS;
  if (*pool->lamports != 0 || pool->data_len != 0 || SolPubkey_same(pool->owner, params->program_id)) return ERR_POOL_EXISTS;
  if (!is_lst_mint(&params->ka[ACCOUNT_LST_MINT], pool->key)) return ERR_BAD_LST_MINT;

  uint64_t rent;
  uint64_t result = rent_exempt_minimum(sizeof(StakePoolState), &rent);
  if (result != SUCCESS) return result;
  if (*authority->lamports < rent) return ERR_INSUFFICIENT_FUNDS;
  if ((result = create_pool_account(params, rent, &bump)) != SUCCESS) return result;

  StakePoolState *state = (StakePoolState *)pool->data;
  sol_memset(state, 0, sizeof(StakePoolState));
  state->account_tag = STAKE_POOL_ACCOUNT_TAG;
  state->bump = bump;
  state->fee_bps = fee_bps;
  sol_memcpy(&state->authority, authority->key, SIZE_PUBKEY);
  sol_memcpy(&state->lst_mint, params->ka[ACCOUNT_LST_MINT].key, SIZE_PUBKEY);
  return SUCCESS;
}

/* The operator's reward crank: the pool authority deposits lamports that raise every LST's value. Refused while
 * no LST is outstanding (nobody would own the reward). */
uint64_t pool_add_rewards(SolParameters *params) {
  if (params->ka_num < 3) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != REWARDS_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  StakePoolState *state;
  uint64_t result = pool_load(params, REWARDS_POOL, &state);
  if (result != SUCCESS) return result;
  SolAccountInfo *authority = &params->ka[REWARDS_AUTHORITY];
  if (!authority->is_signer) return ERR_MISSING_SIGNATURE;
  if (!SolPubkey_same(authority->key, &state->authority)) return ERR_NOT_AUTHORITY;
  if (!is_system_program(params->ka[REWARDS_SYSTEM_PROGRAM].key)) return ERR_WRONG_SYSTEM_PROGRAM;
  uint64_t lamports = sol_read_u64(params->data + 1);
  if (lamports == 0) return ERR_ZERO_AMOUNT;
  if (state->total_lamports == 0) return ERR_EMPTY_POOL;
  uint64_t total = state->total_lamports + lamports;
  if (total < lamports) return ERR_ARITHMETIC_OVERFLOW;
  if ((result = system_transfer(authority, &params->ka[REWARDS_POOL], &params->ka[REWARDS_SYSTEM_PROGRAM], lamports)) != SUCCESS) return result;
  state->total_lamports = total;
  state->total_rewards += lamports;
  return SUCCESS;
}
