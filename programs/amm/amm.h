#pragma once
/* Constant-product AMM program: shared definitions. Layouts and codes are documented in README.md and
 * mirrored by src/protocols/amm/ (keep the three in step). One .so, deployed twice (amm-one, amm-two). */
#include <basis_points.h>
#include <checked_math.h>
#include <program_account.h>
#include <rent.h>
#include <solana_sdk.h>
#include <spl_token.h>
#include <system_cpi.h>
#include <token_cpi.h>

/* ---- instruction tags (first byte of instruction data) ----------------- */
enum { IX_INIT_POOL = 0, IX_ADD_LIQUIDITY = 1, IX_SWAP = 2, IX_REMOVE_LIQUIDITY = 3 };

#define POOL_ACCOUNT_TAG 2
#define MAX_FEE_BPS 1000

/* ---- custom error codes (ProgramError::Custom) ------------------------- */
enum {
  ERR_INVALID_INSTRUCTION = 7000,
  ERR_NOT_ENOUGH_ACCOUNTS = 7001,
  ERR_MISSING_SIGNATURE = 7002,
  ERR_ACCOUNT_NOT_WRITABLE = 7003,
  ERR_WRONG_POOL_ADDRESS = 7004,
  ERR_POOL_EXISTS = 7005,
  ERR_NOT_A_POOL = 7006,
  ERR_MINTS_NOT_ORDERED = 7007,
  ERR_BAD_VAULT = 7008,
  ERR_BAD_LP_MINT = 7009,
  ERR_FEE_TOO_HIGH = 7010,
  ERR_ZERO_AMOUNT = 7011,
  ERR_OUTPUT_BELOW_MINIMUM = 7012,
  ERR_WRONG_VAULT = 7013,
  ERR_EMPTY_POOL = 7014,
  ERR_ARITHMETIC_OVERFLOW = 7015,
  ERR_WRONG_TOKEN_PROGRAM = 7016,
  ERR_WRONG_SYSTEM_PROGRAM = 7017,
  ERR_UNSUPPORTED_RENT = 7018,
  ERR_LP_BELOW_MINIMUM = 7019,
  ERR_INSUFFICIENT_FUNDS = 7020,
  ERR_BAD_MINT = 7021,
  ERR_ZERO_OUTPUT = 7022
};

/* ---- pool account data (168 bytes) ------------------------------------- */
typedef struct {
  uint8_t account_tag; /* 0   POOL_ACCOUNT_TAG */
  uint8_t bump;        /* 1   PDA bump seed */
  uint16_t fee_bps;    /* 2   swap fee, kept in the pool (it accrues to LP holders) */
  uint32_t reserved;   /* 4 */
  SolPubkey mint_a;    /* 8   mint_a < mint_b bytewise: one pool per pair */
  SolPubkey mint_b;    /* 40 */
  SolPubkey vault_a;   /* 72  token account of mint_a owned by the pool PDA: the reserve */
  SolPubkey vault_b;   /* 104 */
  SolPubkey lp_mint;   /* 136 mint authority = the pool PDA; supply = LP shares outstanding */
} PoolState;

_Static_assert(sizeof(PoolState) == 168, "pool state layout");
_Static_assert(__builtin_offsetof(PoolState, mint_a) == 8, "pool state layout");
_Static_assert(__builtin_offsetof(PoolState, lp_mint) == 136, "pool state layout");

#define POOL_SEED "pool"
#define POOL_SEED_LEN 4

/* ---- math.c: the pool's formulas (shared arithmetic in include/checked_math.h) ---- */
uint64_t isqrt_product(uint64_t a, uint64_t b);
bool swap_output(uint64_t amount_in, uint64_t reserve_in, uint64_t reserve_out, uint16_t fee_bps, uint64_t *out);

/* ---- pool.c ------------------------------------------------------------- */
uint64_t pool_load(const SolParameters *params, uint64_t index, PoolState **state);
uint64_t pool_init(SolParameters *params);

/* ---- liquidity.c -------------------------------------------------------- */
uint64_t pool_add_liquidity(SolParameters *params);
uint64_t pool_remove_liquidity(SolParameters *params);

/* ---- swap.c ------------------------------------------------------------- */
uint64_t pool_swap(SolParameters *params);
