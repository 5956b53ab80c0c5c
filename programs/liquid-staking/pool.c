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
  StakePoolState *loaded = program_account_state(account, params->program_id, sizeof(StakePoolState), STAKE_POOL_ACCOUNT_TAG);
  if (loaded == NULL) return ERR_NOT_A_POOL;
  if (!account->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  *state = loaded;
  return SUCCESS;
}

/* The LST mint: a fresh SPL mint whose authority is the pool, 9 decimals (SOL's), no supply, no freeze authority. */
static bool is_lst_mint(const SolAccountInfo *mint, const SolPubkey *pool) {
  return is_fresh_mint(mint, pool) && mint_decimals(mint) == LST_DECIMALS;
}

static uint64_t create_pool_account(SolParameters *params, uint64_t lamports, uint8_t *bump) {
  SolSignerSeed seeds[2] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  CreateAccountCpi create = {&params->ka[ACCOUNT_AUTHORITY], &params->ka[ACCOUNT_POOL], &params->ka[ACCOUNT_SYSTEM_PROGRAM],
                             &signer, params->program_id, lamports, sizeof(StakePoolState)};
  return system_create_account(&create);
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
  uint8_t bump;
  if (!pda_matches(seeds, 1, params->program_id, pool->key, &bump)) return ERR_WRONG_POOL_ADDRESS;
  if (!is_unused_account(pool, params->program_id)) return ERR_POOL_EXISTS;
  if (!is_lst_mint(&params->ka[ACCOUNT_LST_MINT], pool->key)) return ERR_BAD_LST_MINT;

  uint64_t rent;
  if (!rent_exempt_minimum(sizeof(StakePoolState), &rent)) return ERR_UNSUPPORTED_RENT;
  if (*authority->lamports < rent) return ERR_INSUFFICIENT_FUNDS;
  uint64_t result = create_pool_account(params, rent, &bump);
  if (result != SUCCESS) return result;

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
  uint64_t total;
  if (!checked_add(state->total_lamports, lamports, &total)) return ERR_ARITHMETIC_OVERFLOW;
  if ((result = system_transfer(authority, &params->ka[REWARDS_POOL], &params->ka[REWARDS_SYSTEM_PROGRAM], lamports)) != SUCCESS) return result;
  state->total_lamports = total;
  state->total_rewards += lamports;
  return SUCCESS;
}
