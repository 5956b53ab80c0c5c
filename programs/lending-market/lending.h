#pragma once
/* Lending-market program: shared definitions. Layouts and codes are documented in README.md and mirrored by
 * src/protocols/lending/ (keep the three in step). One market per deployment: a reserve PDA per mint
 * (seeds ["reserve", mint]) and an obligation PDA per owner (seeds ["obligation", owner]). */
#include <basis_points.h>
#include <checked_math.h>
#include <clock.h>
#include <program_account.h>
#include <rent.h>
#include <solana_sdk.h>
#include <spl_token.h>
#include <system_cpi.h>
#include <token_cpi.h>

/* ---- instruction tags (first byte of instruction data) ----------------- */
enum { IX_INIT_RESERVE = 0, IX_SUPPLY = 1, IX_BORROW = 2, IX_FLASH_BORROW = 3, IX_FLASH_REPAY = 4, IX_WITHDRAW = 5, IX_REPAY = 6 };

#define RESERVE_ACCOUNT_TAG 5
#define OBLIGATION_ACCOUNT_TAG 6
#define MAX_OBLIGATION_SLOTS 4
#define MAX_COLLATERAL_FACTOR_BPS 9500
#define MAX_FLASH_FEE_BPS 1000
#define INDEX_ONE 1000000000000UL /* the borrow index's 1.0 (10^12) */
#define SECONDS_PER_YEAR 31536000UL
#define VALUE_DECIMALS 6 /* values compared by the health check: USD with 6 decimals */
/* flash_repay's reserve is its account 1: flash_borrow looks for it there in later instructions */
#define REPAY_RESERVE_ACCOUNT 1

/* ---- custom error codes (ProgramError::Custom) ------------------------- */
enum {
  ERR_INVALID_INSTRUCTION = 7200,
  ERR_NOT_ENOUGH_ACCOUNTS = 7201,
  ERR_MISSING_SIGNATURE = 7202,
  ERR_ACCOUNT_NOT_WRITABLE = 7203,
  ERR_WRONG_RESERVE_ADDRESS = 7204,
  ERR_RESERVE_EXISTS = 7205,
  ERR_NOT_A_RESERVE = 7206,
  ERR_BAD_MINT = 7207,
  ERR_BAD_VAULT = 7208,
  ERR_BAD_ORACLE = 7209,
  ERR_BAD_PARAMETER = 7210,
  ERR_ZERO_AMOUNT = 7211,
  ERR_ARITHMETIC_OVERFLOW = 7212,
  ERR_WRONG_TOKEN_PROGRAM = 7213,
  ERR_WRONG_SYSTEM_PROGRAM = 7214,
  ERR_UNSUPPORTED_RENT = 7215,
  ERR_INSUFFICIENT_FUNDS = 7216,
  ERR_WRONG_OBLIGATION_ADDRESS = 7217,
  ERR_NOT_AN_OBLIGATION = 7218,
  ERR_OBLIGATION_FULL = 7219,
  ERR_MISSING_POSITION_ACCOUNTS = 7220,
  ERR_UNHEALTHY = 7221,
  ERR_INSUFFICIENT_LIQUIDITY = 7222,
  ERR_FLASH_NOT_REPAID = 7223,
  ERR_FLASH_LOAN_ACTIVE = 7224,
  ERR_NO_FLASH_LOAN = 7225,
  ERR_REPAY_TOO_SMALL = 7226,
  ERR_WRONG_INSTRUCTIONS_SYSVAR = 7227,
  ERR_WITHDRAW_UNHEALTHY = 7228,
  ERR_NOTHING_SUPPLIED = 7229,
  ERR_NOTHING_BORROWED = 7230,
  ERR_STALE_PRICE = 7231
};

/* ---- reserve account data (192 bytes) ---------------------------------- */
typedef struct {
  uint8_t account_tag;             /* 0   RESERVE_ACCOUNT_TAG */
  uint8_t bump;                    /* 1   PDA bump seed */
  uint8_t decimals;                /* 2   the mint's */
  uint8_t reserved0;               /* 3 */
  uint16_t collateral_factor_bps;  /* 4   share of the supplied value that may be borrowed against */
  uint16_t borrow_rate_bps;        /* 6   yearly simple rate, compounded at each accrual */
  uint16_t flash_fee_bps;          /* 8 */
  uint16_t reserved1;              /* 10 */
  uint32_t reserved2;              /* 12 */
  SolPubkey mint;                  /* 16 */
  SolPubkey vault;                 /* 48  token account of `mint` owned by the reserve PDA: the cash */
  SolPubkey oracle;                /* 80  Pyth PriceUpdateV2 account of the mint's USD price */
  SolPubkey authority;             /* 112 who initialized it */
  uint64_t supply_shares;          /* 144 shares of (cash + borrows) held by suppliers */
  uint64_t borrowed_scaled;        /* 152 debt / borrow index, summed over borrowers */
  uint64_t borrow_index;           /* 160 INDEX_ONE at start, grows with interest */
  int64_t last_accrual_ts;         /* 168 unix seconds */
  uint64_t flash_outstanding;      /* 176 amount + fee owed by the flash loan in flight, 0 when none */
  uint64_t available;              /* 184 cash the market holds in the vault (tokens sent to it otherwise are ignored) */
} ReserveState;

_Static_assert(sizeof(ReserveState) == 192, "reserve layout");
_Static_assert(__builtin_offsetof(ReserveState, supply_shares) == 144, "reserve layout");

/* ---- obligation account data (232 bytes) ------------------------------- */
typedef struct {
  SolPubkey reserve;
  uint64_t supply_shares;
  uint64_t borrowed_scaled;
} ObligationSlot;

typedef struct {
  uint8_t account_tag;  /* 0 OBLIGATION_ACCOUNT_TAG */
  uint8_t bump;         /* 1 */
  uint8_t slot_count;   /* 2 slots in use, in the order reserves were first used */
  uint8_t reserved[5];  /* 3 */
  SolPubkey owner;      /* 8 */
  ObligationSlot slots[MAX_OBLIGATION_SLOTS]; /* 40, 48 bytes each */
} ObligationState;

_Static_assert(sizeof(ObligationState) == 232, "obligation layout");

#define RESERVE_SEED "reserve"
#define RESERVE_SEED_LEN 7
#define OBLIGATION_SEED "obligation"
#define OBLIGATION_SEED_LEN 10

/* ---- create_account.c ------------------------------------------------------ */
/* System create_account of a PDA of this program, funded by `payer` with the rent-exempt minimum of `size`;
 * `signer` holds the PDA's seeds. */
typedef struct {
  SolAccountInfo *payer;
  SolAccountInfo *account;
  const SolAccountInfo *system_program;
  const SolSignerSeeds *signer;
  uint64_t size;
} CreateCpi;
uint64_t create_program_account(const SolParameters *params, const CreateCpi *cpi);

/* ---- reserve.c ------------------------------------------------------------ */
uint64_t reserve_init(SolParameters *params);
uint64_t reserve_load(const SolParameters *params, uint64_t index, ReserveState **state);
/* Interest up to `now`: the index grows by index * rate * elapsed / year (accrue writes it). */
uint64_t reserve_current_index(const ReserveState *reserve, int64_t now, uint64_t *index);
uint64_t reserve_accrue(ReserveState *reserve, int64_t now);
uint64_t reserve_total_assets(const ReserveState *reserve, uint64_t index, uint64_t *total);
/* A transfer out of the reserve's vault, the reserve PDA signing (cpi->signer is ignored). */
uint64_t reserve_signer_transfer(ReserveState *reserve, const TokenCpi *cpi, uint64_t amount);
/* USD value (VALUE_DECIMALS) of `amount` base units at the reserve's oracle price. */
uint64_t oracle_value(const SolAccountInfo *oracle, const ReserveState *reserve, uint64_t amount, uint64_t *value);

/* ---- obligation.c --------------------------------------------------------- */
uint64_t obligation_load_or_create(SolParameters *params, uint64_t owner_index, uint64_t obligation_index,
                                   uint64_t system_index, ObligationState **state);
uint64_t obligation_load(const SolParameters *params, uint64_t owner_index, uint64_t obligation_index, ObligationState **state);
uint64_t obligation_slot(ObligationState *obligation, const SolPubkey *reserve, ObligationSlot **slot);
/* The owner's existing slot of `reserve`, NULL when it has none. */
ObligationSlot *obligation_find_slot(ObligationState *obligation, const SolPubkey *reserve);
/* Drops the slots that hold neither shares nor debt (the later ones move up, keeping their order). */
void obligation_drop_empty_slots(ObligationState *obligation);
/* SUCCESS, or `refusal` (ERR_UNHEALTHY for a borrow, ERR_WITHDRAW_UNHEALTHY for a withdrawal) when the debt value
 * exceeds the collateral value x factor. */
uint64_t obligation_check_health(const SolParameters *params, const ObligationState *obligation, uint64_t first_pair, int64_t now,
                                 uint64_t refusal);

/* ---- market.c ------------------------------------------------------------- */
/* Account order of supply, borrow, withdraw and repay (README: Instructions). */
enum { ACCOUNT_OWNER = 0, ACCOUNT_OBLIGATION = 1, ACCOUNT_RESERVE = 2, ACCOUNT_VAULT = 3, ACCOUNT_USER_TOKEN = 4, ACCOUNT_TOKEN_PROGRAM = 5 };
/* Checks shared by the four: at least `accounts`, an amount, the owner's signature, the reserve and its vault,
 * no flash loan in flight; accrues the reserve's interest to now; then reads the amount (7211 when it is 0). */
uint64_t market_load(SolParameters *params, uint64_t accounts, ReserveState **reserve, int64_t *now, uint64_t *amount);
uint64_t market_supply(SolParameters *params);
uint64_t market_borrow(SolParameters *params);

/* ---- withdraw_repay.c ----------------------------------------------------- */
uint64_t market_withdraw(SolParameters *params);
uint64_t market_repay(SolParameters *params);

/* ---- flash.c -------------------------------------------------------------- */
uint64_t flash_borrow(SolParameters *params);
uint64_t flash_repay(SolParameters *params);
