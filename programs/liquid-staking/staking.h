#pragma once
/* Liquid-staking program: shared definitions. Layouts and codes are documented in README.md and mirrored by
 * src/protocols/staking/ (keep the three in step). One pool per deployment: the PDA of seeds ["stake_pool"]. */
#include <basis_points.h>
#include <checked_math.h>
#include <program_account.h>
#include <rent.h>
#include <solana_sdk.h>
#include <spl_token.h>
#include <system_cpi.h>
#include <token_cpi.h>

/* ---- instruction tags (first byte of instruction data) ----------------- */
enum { IX_INIT_POOL = 0, IX_STAKE = 1, IX_UNSTAKE = 2, IX_ADD_REWARDS = 3 };

#define STAKE_POOL_ACCOUNT_TAG 3
#define MAX_FEE_BPS 1000
#define LST_DECIMALS 9

/* ---- custom error codes (ProgramError::Custom) ------------------------- */
enum {
  ERR_INVALID_INSTRUCTION = 7100,
  ERR_NOT_ENOUGH_ACCOUNTS = 7101,
  ERR_MISSING_SIGNATURE = 7102,
  ERR_ACCOUNT_NOT_WRITABLE = 7103,
  ERR_WRONG_POOL_ADDRESS = 7104,
  ERR_POOL_EXISTS = 7105,
  ERR_NOT_A_POOL = 7106,
  ERR_BAD_LST_MINT = 7107,
  ERR_FEE_TOO_HIGH = 7108,
  ERR_ZERO_AMOUNT = 7109,
  ERR_OUTPUT_BELOW_MINIMUM = 7110,
  ERR_ZERO_OUTPUT = 7111,
  ERR_ARITHMETIC_OVERFLOW = 7112,
  ERR_WRONG_TOKEN_PROGRAM = 7113,
  ERR_WRONG_SYSTEM_PROGRAM = 7114,
  ERR_UNSUPPORTED_RENT = 7115,
  ERR_INSUFFICIENT_FUNDS = 7116,
  ERR_NOT_AUTHORITY = 7117,
  ERR_EMPTY_POOL = 7118
};

/* ---- pool account data (88 bytes) -------------------------------------- */
typedef struct {
  uint8_t account_tag;     /* 0  STAKE_POOL_ACCOUNT_TAG */
  uint8_t bump;            /* 1  PDA bump seed */
  uint16_t fee_bps;        /* 2  instant-unstake fee, kept in the pool (it accrues to LST holders) */
  uint32_t reserved;       /* 4 */
  SolPubkey authority;     /* 8  may add rewards (the operator's crank) */
  SolPubkey lst_mint;      /* 40 mint authority = the pool PDA; supply = LST outstanding */
  uint64_t total_lamports; /* 72 SOL backing the LST (the pool's lamports above its rent) */
  uint64_t total_rewards;  /* 80 rewards added so far (for display) */
} StakePoolState;

_Static_assert(sizeof(StakePoolState) == 88, "stake pool layout");
_Static_assert(__builtin_offsetof(StakePoolState, total_lamports) == 72, "stake pool layout");

#define POOL_SEED "stake_pool"
#define POOL_SEED_LEN 10

/* ---- pool.c --------------------------------------------------------------- */
uint64_t pool_load(const SolParameters *params, uint64_t index, StakePoolState **state);
uint64_t pool_init(SolParameters *params);
uint64_t pool_add_rewards(SolParameters *params);

/* ---- stake.c -------------------------------------------------------------- */
uint64_t pool_stake(SolParameters *params);
uint64_t pool_unstake(SolParameters *params);
