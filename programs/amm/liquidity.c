/* AMM program: add_liquidity and remove_liquidity. LP shares are the LP mint's tokens: the first deposit
 * mints floor(sqrt(a * b)), later ones the smaller of the two proportional shares (any excess stays in the pool). */
#include "amm.h"

#define AT_FIRST 1
#define AT_SECOND 9
#define AT_THIRD 17
#define LIQUIDITY_DATA_LEN 25

enum {
  ACCOUNT_PROVIDER = 0,
  ACCOUNT_POOL = 1,
  ACCOUNT_VAULT_A = 2,
  ACCOUNT_VAULT_B = 3,
  ACCOUNT_LP_MINT = 4,
  ACCOUNT_PROVIDER_A = 5,
  ACCOUNT_PROVIDER_B = 6,
  ACCOUNT_PROVIDER_LP = 7,
  ACCOUNT_TOKEN_PROGRAM = 8
};

/* Common checks; the pool's accounts must be exactly the recorded ones. */
static uint64_t load_for_liquidity(SolParameters *params, PoolState **state) {
  if (params->ka_num < 9) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != LIQUIDITY_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  uint64_t result = pool_load(params, ACCOUNT_POOL, state);
  if (result != SUCCESS) return result;
  if (!params->ka[ACCOUNT_PROVIDER].is_signer) return ERR_MISSING_SIGNATURE;
  if (!is_token_program(params->ka[ACCOUNT_TOKEN_PROGRAM].key)) return ERR_WRONG_TOKEN_PROGRAM;
  if (!SolPubkey_same(params->ka[ACCOUNT_VAULT_A].key, &(*state)->vault_a) ||
      !SolPubkey_same(params->ka[ACCOUNT_VAULT_B].key, &(*state)->vault_b)) {
    return ERR_WRONG_VAULT;
  }
  if (!SolPubkey_same(params->ka[ACCOUNT_LP_MINT].key, &(*state)->lp_mint)) return ERR_BAD_LP_MINT;
  return SUCCESS;
}

uint64_t pool_add_liquidity(SolParameters *params) {
  PoolState *state;
  uint64_t result = load_for_liquidity(params, &state);
  if (result != SUCCESS) return result;
  uint64_t amount_a = sol_read_u64(params->data + AT_FIRST);
  uint64_t amount_b = sol_read_u64(params->data + AT_SECOND);
  uint64_t minimum_lp = sol_read_u64(params->data + AT_THIRD);
  if (amount_a == 0 || amount_b == 0) return ERR_ZERO_AMOUNT;
  SolAccountInfo *ka = params->ka;
  uint64_t supply = mint_supply(&ka[ACCOUNT_LP_MINT]);
  uint64_t shares;
  if (supply == 0) {
    shares = isqrt_product(amount_a, amount_b);
  } else {
    uint64_t reserve_a = token_account_amount(&ka[ACCOUNT_VAULT_A]);
    uint64_t reserve_b = token_account_amount(&ka[ACCOUNT_VAULT_B]);
    if (reserve_a == 0 || reserve_b == 0) return ERR_EMPTY_POOL;
    uint64_t by_a, by_b;
    if (!mul_div(amount_a, supply, reserve_a, &by_a) || !mul_div(amount_b, supply, reserve_b, &by_b)) return ERR_ARITHMETIC_OVERFLOW;
    shares = by_a < by_b ? by_a : by_b;
  }
  if (shares == 0) return ERR_ZERO_OUTPUT;
  if (shares < minimum_lp) return ERR_LP_BELOW_MINIMUM;
  SolAccountInfo *program = &ka[ACCOUNT_TOKEN_PROGRAM];
  TokenCpi deposit_a = {&ka[ACCOUNT_PROVIDER_A], &ka[ACCOUNT_VAULT_A], &ka[ACCOUNT_PROVIDER], program, NULL};
  if ((result = token_transfer(&deposit_a, amount_a)) != SUCCESS) return result;
  TokenCpi deposit_b = {&ka[ACCOUNT_PROVIDER_B], &ka[ACCOUNT_VAULT_B], &ka[ACCOUNT_PROVIDER], program, NULL};
  if ((result = token_transfer(&deposit_b, amount_b)) != SUCCESS) return result;
  SolSignerSeed seeds[4] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {state->mint_a.x, SIZE_PUBKEY}, {state->mint_b.x, SIZE_PUBKEY}, {&state->bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  TokenCpi mint = {&ka[ACCOUNT_LP_MINT], &ka[ACCOUNT_PROVIDER_LP], &ka[ACCOUNT_POOL], program, &signer};
  return token_mint_to(&mint, shares);
}

uint64_t pool_remove_liquidity(SolParameters *params) {
  PoolState *state;
  uint64_t result = load_for_liquidity(params, &state);
  if (result != SUCCESS) return result;
  uint64_t shares = sol_read_u64(params->data + AT_FIRST);
  uint64_t minimum_a = sol_read_u64(params->data + AT_SECOND);
  uint64_t minimum_b = sol_read_u64(params->data + AT_THIRD);
  if (shares == 0) return ERR_ZERO_AMOUNT;
  SolAccountInfo *ka = params->ka;
  uint64_t supply = mint_supply(&ka[ACCOUNT_LP_MINT]);
  if (supply == 0 || shares > supply) return ERR_INSUFFICIENT_FUNDS;
  uint64_t out_a, out_b;
  if (!mul_div(shares, token_account_amount(&ka[ACCOUNT_VAULT_A]), supply, &out_a) ||
      !mul_div(shares, token_account_amount(&ka[ACCOUNT_VAULT_B]), supply, &out_b)) {
    return ERR_ARITHMETIC_OVERFLOW;
  }
  if (out_a < minimum_a || out_b < minimum_b) return ERR_OUTPUT_BELOW_MINIMUM;
  SolAccountInfo *program = &ka[ACCOUNT_TOKEN_PROGRAM];
  TokenCpi burn = {&ka[ACCOUNT_PROVIDER_LP], &ka[ACCOUNT_LP_MINT], &ka[ACCOUNT_PROVIDER], program, NULL};
  if ((result = token_burn(&burn, shares)) != SUCCESS) return result;
  SolSignerSeed seeds[4] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {state->mint_a.x, SIZE_PUBKEY}, {state->mint_b.x, SIZE_PUBKEY}, {&state->bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  TokenCpi pay_a = {&ka[ACCOUNT_VAULT_A], &ka[ACCOUNT_PROVIDER_A], &ka[ACCOUNT_POOL], program, &signer};
  if (out_a > 0 && (result = token_transfer(&pay_a, out_a)) != SUCCESS) return result;
  TokenCpi pay_b = {&ka[ACCOUNT_VAULT_B], &ka[ACCOUNT_PROVIDER_B], &ka[ACCOUNT_POOL], program, &signer};
  if (out_b > 0 && (result = token_transfer(&pay_b, out_b)) != SUCCESS) return result;
  return SUCCESS;
}
