/* Liquid-staking program: stake and unstake at the pool's exchange rate (total_lamports / LST supply).
 * Stake mints floor(lamports * supply / total) LST (1:1 into an empty pool); unstake is instant: it burns LST
 * for floor(lst * total / supply) lamports minus the pool's fee, which stays in the pool for LST holders. */
#include "staking.h"

#define AT_FIRST 1
#define AT_SECOND 9
#define STAKE_DATA_LEN 17

enum {
  ACCOUNT_STAKER = 0,
  ACCOUNT_POOL = 1,
  ACCOUNT_LST_MINT = 2,
  ACCOUNT_STAKER_LST = 3,
  ACCOUNT_TOKEN_PROGRAM = 4,
  ACCOUNT_SYSTEM_PROGRAM = 5
};

static uint64_t load_for_stake(SolParameters *params, uint64_t accounts, StakePoolState **state) {
  if (params->ka_num < accounts) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != STAKE_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  uint64_t result = pool_load(params, ACCOUNT_POOL, state);
  if (result != SUCCESS) return result;
  SolAccountInfo *staker = &params->ka[ACCOUNT_STAKER];
  if (!staker->is_signer) return ERR_MISSING_SIGNATURE;
  if (!staker->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!is_token_program(params->ka[ACCOUNT_TOKEN_PROGRAM].key)) return ERR_WRONG_TOKEN_PROGRAM;
  if (!SolPubkey_same(params->ka[ACCOUNT_LST_MINT].key, &(*state)->lst_mint)) return ERR_BAD_LST_MINT;
  return SUCCESS;
}

uint64_t pool_stake(SolParameters *params) {
  StakePoolState *state;
  uint64_t result = load_for_stake(params, 6, &state);
  if (result != SUCCESS) return result;
  if (!is_system_program(params->ka[ACCOUNT_SYSTEM_PROGRAM].key)) return ERR_WRONG_SYSTEM_PROGRAM;
  uint64_t lamports = sol_read_u64(params->data + AT_FIRST);
  uint64_t minimum_lst = sol_read_u64(params->data + AT_SECOND);
  if (lamports == 0) return ERR_ZERO_AMOUNT;
  SolAccountInfo *ka = params->ka;
  uint64_t supply = mint_supply(&ka[ACCOUNT_LST_MINT]);
  uint64_t lst = lamports;
  if (supply != 0) {
    if (state->total_lamports == 0) return ERR_EMPTY_POOL;
    if (!mul_div(lamports, supply, state->total_lamports, &lst)) return ERR_ARITHMETIC_OVERFLOW;
  }
  if (lst == 0) return ERR_ZERO_OUTPUT;
  if (lst < minimum_lst) return ERR_OUTPUT_BELOW_MINIMUM;
  uint64_t total;
  if (!checked_add(state->total_lamports, lamports, &total)) return ERR_ARITHMETIC_OVERFLOW;
  if ((result = system_transfer(&ka[ACCOUNT_STAKER], &ka[ACCOUNT_POOL], &ka[ACCOUNT_SYSTEM_PROGRAM], lamports)) != SUCCESS) return result;
  SolSignerSeed seeds[2] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {&state->bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  TokenCpi mint = {&ka[ACCOUNT_LST_MINT], &ka[ACCOUNT_STAKER_LST], &ka[ACCOUNT_POOL], &ka[ACCOUNT_TOKEN_PROGRAM], &signer};
  if ((result = token_mint_to(&mint, lst)) != SUCCESS) return result;
  state->total_lamports = total;
  return SUCCESS;
}

uint64_t pool_unstake(SolParameters *params) {
  StakePoolState *state;
  uint64_t result = load_for_stake(params, 5, &state);
  if (result != SUCCESS) return result;
  uint64_t lst = sol_read_u64(params->data + AT_FIRST);
  uint64_t minimum_lamports = sol_read_u64(params->data + AT_SECOND);
  if (lst == 0) return ERR_ZERO_AMOUNT;
  SolAccountInfo *ka = params->ka;
  uint64_t supply = mint_supply(&ka[ACCOUNT_LST_MINT]);
  if (supply == 0 || lst > supply) return ERR_INSUFFICIENT_FUNDS;
  uint64_t gross;
  if (!mul_div(lst, state->total_lamports, supply, &gross)) return ERR_ARITHMETIC_OVERFLOW;
  uint64_t net = gross - bps_of(gross, state->fee_bps);
  if (net == 0) return ERR_ZERO_OUTPUT;
  if (net < minimum_lamports) return ERR_OUTPUT_BELOW_MINIMUM;
  if (net > state->total_lamports || *ka[ACCOUNT_POOL].lamports < net) return ERR_INSUFFICIENT_FUNDS;
  TokenCpi burn = {&ka[ACCOUNT_STAKER_LST], &ka[ACCOUNT_LST_MINT], &ka[ACCOUNT_STAKER], &ka[ACCOUNT_TOKEN_PROGRAM], NULL};
  if ((result = token_burn(&burn, lst)) != SUCCESS) return result;
  /* The pool owns its account, so it pays the staker directly (no CPI needed to debit it). */
  move_lamports(&ka[ACCOUNT_POOL], &ka[ACCOUNT_STAKER], net);
  state->total_lamports -= net;
  return SUCCESS;
}
