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
  const SolAccountInfo *account = &params->ka[index];
  if (!SolPubkey_same(account->owner, params->program_id)) return ERR_NOT_A_POOL;
  if (account->data_len != sizeof(PoolState)) return ERR_NOT_A_POOL;
  PoolState *loaded = (PoolState *)account->data;
  if (loaded->account_tag != POOL_ACCOUNT_TAG) return ERR_NOT_A_POOL;
  *state = loaded;
  return SUCCESS;
}

/* Rent-exempt minimum = (128 + data_len) * lamports_per_byte_year * threshold (a whole-number f64). */
uint64_t pool_rent_exempt_minimum(uint64_t data_len, uint64_t *lamports) {
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

static bool mints_ordered(const SolPubkey *a, const SolPubkey *b) {
  for (int i = 0; i < SIZE_PUBKEY; i++) {
    if (a->x[i] != b->x[i]) return a->x[i] < b->x[i];
  }
  return false;
}

static bool option_none(const uint8_t *tag) {
  return tag[0] == 0 && tag[1] == 0 && tag[2] == 0 && tag[3] == 0;
}

/* A vault: an initialized token account of `mint`, owned by the pool, with no delegate or close authority. */
static bool is_vault(const SolAccountInfo *vault, const SolPubkey *mint, const SolPubkey *pool) {
  if (!is_token_program(vault->owner) || vault->data_len != TOKEN_ACCOUNT_SIZE) return false;
  const uint8_t *d = vault->data;
  return sol_memeq(d, mint->x, SIZE_PUBKEY) && sol_memeq(d + 32, pool->x, SIZE_PUBKEY) && option_none(d + 72) &&
         d[108] == 1 && option_none(d + 129);
}

/* The LP mint: a fresh mint whose authority is the pool, no supply, no freeze authority. */
static bool is_lp_mint(const SolAccountInfo *mint, const SolPubkey *pool) {
  if (!is_token_program(mint->owner) || mint->data_len != MINT_SIZE) return false;
  const uint8_t *d = mint->data;
  return d[0] == 1 && d[1] == 0 && d[2] == 0 && d[3] == 0 && sol_memeq(d + 4, pool->x, SIZE_PUBKEY) &&
         sol_read_u64(d + 36) == 0 && d[45] == 1 && option_none(d + 46);
}

static bool is_mint(const SolAccountInfo *mint) {
  return is_token_program(mint->owner) && mint->data_len == MINT_SIZE && mint->data[45] == 1;
}

static uint64_t create_pool_account(SolParameters *params, uint64_t lamports, uint8_t *bump) {
  SolAccountInfo *payer = &params->ka[ACCOUNT_PAYER];
  SolAccountInfo *pool = &params->ka[ACCOUNT_POOL];
  uint8_t data[52];
  sol_memset(data, 0, sizeof(data));
  sol_write_u64(data + 4, lamports);
  sol_write_u64(data + 12, sizeof(PoolState));
  sol_memcpy(data + 20, params->program_id, SIZE_PUBKEY);
  SolAccountMeta metas[2] = {{payer->key, true, true}, {pool->key, true, true}};
  SolInstruction instruction = {params->ka[ACCOUNT_SYSTEM_PROGRAM].key, metas, 2, data, sizeof(data)};
  SolSignerSeed seeds[4] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN},
                            {params->ka[ACCOUNT_MINT_A].key->x, SIZE_PUBKEY},
                            {params->ka[ACCOUNT_MINT_B].key->x, SIZE_PUBKEY},
                            {bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  return sol_invoke_signed_c(&instruction, params->ka, 2, &signer, 1);
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
  for (int i = 0; i < SIZE_PUBKEY; i++) {
    if (params->ka[ACCOUNT_SYSTEM_PROGRAM].key->x[i] != 0) return ERR_WRONG_SYSTEM_PROGRAM;
  }
  uint16_t fee_bps = sol_read_u16(params->data + AT_FEE_BPS);
  if (fee_bps > MAX_FEE_BPS) return ERR_FEE_TOO_HIGH;
  if (!mints_ordered(mint_a, mint_b)) return ERR_MINTS_NOT_ORDERED;
  if (!is_mint(&params->ka[ACCOUNT_MINT_A]) || !is_mint(&params->ka[ACCOUNT_MINT_B])) return ERR_BAD_MINT;

  SolSignerSeed seeds[3] = {{(const uint8_t *)POOL_SEED, POOL_SEED_LEN}, {mint_a->x, SIZE_PUBKEY}, {mint_b->x, SIZE_PUBKEY}};
  SolPubkey expected;
  uint8_t bump;
  if (sol_try_find_program_address(seeds, 3, params->program_id, &expected, &bump) != SUCCESS) return ERR_WRONG_POOL_ADDRESS;
  if (!SolPubkey_same(&expected, pool->key)) return ERR_WRONG_POOL_ADDRESS;
  if (*pool->lamports != 0 || pool->data_len != 0 || SolPubkey_same(pool->owner, params->program_id)) return ERR_POOL_EXISTS;
  if (!is_vault(&params->ka[ACCOUNT_VAULT_A], mint_a, pool->key)) return ERR_BAD_VAULT;
  if (!is_vault(&params->ka[ACCOUNT_VAULT_B], mint_b, pool->key)) return ERR_BAD_VAULT;
  if (!is_lp_mint(&params->ka[ACCOUNT_LP_MINT], pool->key)) return ERR_BAD_LP_MINT;

  uint64_t rent;
  uint64_t result = pool_rent_exempt_minimum(sizeof(PoolState), &rent);
  if (result != SUCCESS) return result;
  if (*payer->lamports < rent) return ERR_INSUFFICIENT_FUNDS;
  if ((result = create_pool_account(params, rent, &bump)) != SUCCESS) return result;

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
