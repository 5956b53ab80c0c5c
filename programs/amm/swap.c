/* AMM program: swap. Exact input; the output is computed from the vaults' balances at execution and the
 * whole swap fails (7012) when it is below the caller's minimum, so a pool that moved cannot cost more. */
#include "amm.h"

#define AT_AMOUNT_IN 1
#define AT_MINIMUM_OUT 9
#define SWAP_DATA_LEN 17

enum {
  ACCOUNT_USER = 0,
  ACCOUNT_POOL = 1,
  ACCOUNT_VAULT_IN = 2,
  ACCOUNT_VAULT_OUT = 3,
  ACCOUNT_USER_IN = 4,
  ACCOUNT_USER_OUT = 5,
  ACCOUNT_TOKEN_PROGRAM = 6
};

uint64_t pool_swap(SolParameters *params) {
  if (params->ka_num < 7) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != SWAP_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  PoolState *state;
  uint64_t result = pool_load(params, ACCOUNT_POOL, &state);
  if (result != SUCCESS) return result;
  SolAccountInfo *ka = params->ka;
  if (!ka[ACCOUNT_USER].is_signer) return ERR_MISSING_SIGNATURE;
  if (!is_token_program(ka[ACCOUNT_TOKEN_PROGRAM].key)) return ERR_WRONG_TOKEN_PROGRAM;
  const SolPubkey *vault_in = ka[ACCOUNT_VAULT_IN].key;
  const SolPubkey *vault_out = ka[ACCOUNT_VAULT_OUT].key;
  bool a_to_b = SolPubkey_same(vault_in, &state->vault_a) && SolPubkey_same(vault_out, &state->vault_b);
  bool b_to_a = SolPubkey_same(vault_in, &state->vault_b) && SolPubkey_same(vault_out, &state->vault_a);
  if (!a_to_b && !b_to_a) return ERR_WRONG_VAULT;

  uint64_t amount_in = sol_read_u64(params->data + AT_AMOUNT_IN);
  uint64_t minimum_out = sol_read_u64(params->data + AT_MINIMUM_OUT);
  if (amount_in == 0) return ERR_ZERO_AMOUNT;
  uint64_t reserve_in = token_account_amount(&ka[ACCOUNT_VAULT_IN]);
  uint64_t reserve_out = token_account_amount(&ka[ACCOUNT_VAULT_OUT]);
  if (reserve_in == 0 || reserve_out == 0) return ERR_EMPTY_POOL;
  uint64_t amount_out;
  if (!swap_output(amount_in, reserve_in, reserve_out, state->fee_bps, &amount_out)) return ERR_ARITHMETIC_OVERFLOW;
  sol_log_64(amount_in, amount_out, minimum_out, reserve_in, reserve_out);
  if (amount_out == 0) return ERR_ZERO_OUTPUT;
  if (amount_out < minimum_out) return ERR_OUTPUT_BELOW_MINIMUM;

  SolAccountInfo *program = &ka[ACCOUNT_TOKEN_PROGRAM];
  TokenCpi pay_in = {&ka[ACCOUNT_USER_IN], &ka[ACCOUNT_VAULT_IN], &ka[ACCOUNT_USER], program, NULL};
  if ((result = token_transfer(&pay_in, amount_in)) != SUCCESS) return result;
  SolSignerSeed seeds[4] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {state->mint_a.x, SIZE_PUBKEY}, {state->mint_b.x, SIZE_PUBKEY}, {&state->bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  TokenCpi pay_out = {&ka[ACCOUNT_VAULT_OUT], &ka[ACCOUNT_USER_OUT], &ka[ACCOUNT_POOL], program, &signer};
  return token_transfer(&pay_out, amount_out);
}
