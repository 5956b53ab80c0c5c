/* AMM program: init_pool and loading a pool. The pool PDA (seeds "pool", mint_a, mint_b) owns two vault
 * token accounts (the reserves) and is the mint authority of the LP mint; the client creates those three
 * beforehand (vaults as the PDA's associated token accounts) and the program checks them. */
#include "amm.h"

#define AT_FEE_BPS 1
#define INIT_DATA_LEN 3

enum {
  ACCOUNT_PAYER = 0,
  ACCOUNT_POOL = 1,
  ACCOUNT_MINT_A = 2,
  ACCOUNT_MINT_B = 3,
  ACCOUNT_VAULT_A = 4,
  ACCOUNT_VAULT_B = 5,
  ACCOUNT_LP_MINT = 6,
  ACCOUNT_SYSTEM_PROGRAM = 7
};

uint64_t pool_load(const SolParameters *params, uint64_t index, PoolState **state) {
  if (params->ka_num <= index) return ERR_NOT_ENOUGH_ACCOUNTS;
  PoolState *loaded = program_account_state(&params->ka[index], params->program_id, sizeof(PoolState), POOL_ACCOUNT_TAG);
  if (loaded == NULL) return ERR_NOT_A_POOL;
  *state = loaded;
  return SUCCESS;
}

static bool mints_ordered(const SolPubkey *a, const SolPubkey *b) {
  for (int i = 0; i < SIZE_PUBKEY; i++) {
    if (a->x[i] != b->x[i]) return a->x[i] < b->x[i];
  }
  return false;
}

static uint64_t create_pool_account(SolParameters *params, uint64_t lamports, uint8_t *bump) {
  SolSignerSeed seeds[4] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN},
                            {params->ka[ACCOUNT_MINT_A].key->x, SIZE_PUBKEY},
                            {params->ka[ACCOUNT_MINT_B].key->x, SIZE_PUBKEY},
                            {bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  CreateAccountCpi create = {&params->ka[ACCOUNT_PAYER], &params->ka[ACCOUNT_POOL], &params->ka[ACCOUNT_SYSTEM_PROGRAM],
                             &signer, params->program_id, lamports, sizeof(PoolState)};
  return system_create_account(&create);
}

uint64_t pool_init(SolParameters *params) {
  if (params->ka_num < 8) return ERR_NOT_ENOUGH_ACCOUNTS;
  if (params->data_len != INIT_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  SolAccountInfo *payer = &params->ka[ACCOUNT_PAYER];
  SolAccountInfo *pool = &params->ka[ACCOUNT_POOL];
  const SolPubkey *mint_a = params->ka[ACCOUNT_MINT_A].key;
  const SolPubkey *mint_b = params->ka[ACCOUNT_MINT_B].key;
  if (!payer->is_signer) return ERR_MISSING_SIGNATURE;
  if (!payer->is_writable || !pool->is_writable) return ERR_ACCOUNT_NOT_WRITABLE;
  if (!is_system_program(params->ka[ACCOUNT_SYSTEM_PROGRAM].key)) return ERR_WRONG_SYSTEM_PROGRAM;
  uint16_t fee_bps = sol_read_u16(params->data + AT_FEE_BPS);
  if (fee_bps > MAX_FEE_BPS) return ERR_FEE_TOO_HIGH;
  if (!mints_ordered(mint_a, mint_b)) return ERR_MINTS_NOT_ORDERED;
  if (!is_initialized_mint(&params->ka[ACCOUNT_MINT_A]) || !is_initialized_mint(&params->ka[ACCOUNT_MINT_B])) return ERR_BAD_MINT;

  SolSignerSeed seeds[3] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {mint_a->x, SIZE_PUBKEY}, {mint_b->x, SIZE_PUBKEY}};
  uint8_t bump;
  if (!pda_matches(seeds, 3, params->program_id, pool->key, &bump)) return ERR_WRONG_POOL_ADDRESS;
  if (!is_unused_account(pool, params->program_id)) return ERR_POOL_EXISTS;
  if (!is_vault_account(&params->ka[ACCOUNT_VAULT_A], mint_a, pool->key)) return ERR_BAD_VAULT;
  if (!is_vault_account(&params->ka[ACCOUNT_VAULT_B], mint_b, pool->key)) return ERR_BAD_VAULT;
  if (!is_fresh_mint(&params->ka[ACCOUNT_LP_MINT], pool->key)) return ERR_BAD_LP_MINT;

  uint64_t rent;
  if (!rent_exempt_minimum(sizeof(PoolState), &rent)) return ERR_UNSUPPORTED_RENT;
  if (*payer->lamports < rent) return ERR_INSUFFICIENT_FUNDS;
  uint64_t result = create_pool_account(params, rent, &bump);
  if (result != SUCCESS) return result;

  PoolState *state = (PoolState *)pool->data;
  sol_memset(state, 0, sizeof(PoolState));
  state->account_tag = POOL_ACCOUNT_TAG;
  state->bump = bump;
  state->fee_bps = fee_bps;
  sol_memcpy(&state->mint_a, mint_a, SIZE_PUBKEY);
  sol_memcpy(&state->mint_b, mint_b, SIZE_PUBKEY);
  sol_memcpy(&state->vault_a, params->ka[ACCOUNT_VAULT_A].key, SIZE_PUBKEY);
  sol_memcpy(&state->vault_b, params->ka[ACCOUNT_VAULT_B].key, SIZE_PUBKEY);
  sol_memcpy(&state->lp_mint, params->ka[ACCOUNT_LP_MINT].key, SIZE_PUBKEY);
  return SUCCESS;
}
