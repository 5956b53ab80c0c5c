#pragma once
/* Escrow program: shared definitions. Layouts and codes are documented in README.md and
 * mirrored by src/protocols/escrow/ (keep the three in step). */
#include <basis_points.h>
#include <checked_math.h>
#include <clock.h>
#include <program_account.h>
#include <rent.h>
#include <solana_sdk.h>
#include <system_cpi.h>

/* ---- instruction tags (first byte of instruction data) ----------------- */
enum {
  IX_CREATE = 0,
  IX_ACCEPT = 1,
  IX_RELEASE = 2,
  IX_REFUND = 3,
  IX_DISPUTE = 4,
  IX_RESOLVE = 5,
  IX_CREATE_MILESTONE = 6,
  IX_RELEASE_MILESTONE = 7
};

/* ---- status and decisions ---------------------------------------------- */
enum {
  STATUS_CREATED = 1,
  STATUS_ACCEPTED = 2,
  STATUS_COMPLETED = 3,
  STATUS_REFUNDED = 4,
  STATUS_DISPUTED = 5,
  STATUS_RESOLVED = 6
};
enum { DECISION_NONE = 0, DECISION_RELEASE = 1, DECISION_REFUND = 2 };

#define ESCROW_ACCOUNT_TAG 1
#define MAX_MILESTONES 8
#define MAX_FEE_BPS 1000
#define WHOLE_REMAINDER 0xff /* milestone index reported for a release of everything left */

/* ---- custom error codes (ProgramError::Custom) ------------------------- */
enum {
  ERR_INVALID_INSTRUCTION = 6000,
  ERR_ONLY_COUNTERPARTY_ACCEPTS = 6001,
  ERR_ONLY_CREATOR_OR_ARBITER_RELEASES = 6002,
  ERR_ONLY_CREATOR_OR_COUNTERPARTY_DISPUTES = 6003,
  ERR_ONLY_ARBITER_RESOLVES = 6004,
  ERR_ONLY_CREATOR_OR_ARBITER_REFUNDS = 6005,
  ERR_DEADLINE_NOT_REACHED = 6006,
  ERR_ACCEPTED_ONLY_ARBITER_REFUNDS = 6007,
  ERR_DEADLINE_PASSED = 6008,
  ERR_NOT_AWAITING_ACCEPTANCE = 6009,
  ERR_NOT_ACCEPTED = 6010,
  ERR_NOT_DISPUTED = 6011,
  ERR_ESCROW_CLOSED = 6012,
  ERR_MISSING_SIGNATURE = 6013,
  ERR_WRONG_ESCROW_ADDRESS = 6014,
  ERR_ESCROW_EXISTS = 6015,
  ERR_NOT_AN_ESCROW = 6016,
  ERR_ZERO_AMOUNT = 6017,
  ERR_FEE_TOO_HIGH = 6018,
  ERR_DEADLINE_NOT_IN_FUTURE = 6019,
  ERR_WRONG_COUNTERPARTY_ACCOUNT = 6020,
  ERR_WRONG_FEE_RECIPIENT_ACCOUNT = 6021,
  ERR_WRONG_CREATOR_ACCOUNT = 6022,
  ERR_BAD_MILESTONE_COUNT = 6023,
  ERR_MILESTONE_SUM_MISMATCH = 6024,
  ERR_MILESTONE_INDEX_OUT_OF_RANGE = 6025,
  ERR_MILESTONE_ALREADY_RELEASED = 6026,
  ERR_NOT_MILESTONE_ESCROW = 6027,
  ERR_INVALID_DECISION = 6028,
  ERR_NOT_ENOUGH_ACCOUNTS = 6029,
  ERR_ACCOUNT_NOT_WRITABLE = 6030,
  ERR_WRONG_SYSTEM_PROGRAM = 6031,
  ERR_PARTIES_NOT_DISTINCT = 6032,
  ERR_ZERO_MILESTONE = 6033,
  ERR_ARITHMETIC_OVERFLOW = 6034,
  ERR_UNSUPPORTED_RENT = 6035,
  ERR_INSUFFICIENT_FUNDS = 6036,
  ERR_DISPUTED = 6037,
  ERR_CLOCK_UNAVAILABLE = 6038
};

/* ---- escrow account data (272 bytes, little-endian, naturally aligned) - */
typedef struct {
  uint8_t account_tag;          /* 0   ESCROW_ACCOUNT_TAG */
  uint8_t status;               /* 1   STATUS_* */
  uint8_t bump;                 /* 2   PDA bump seed */
  uint8_t milestone_count;      /* 3   0 for a simple escrow */
  uint8_t resolution;           /* 4   DECISION_* once resolved */
  uint8_t released_milestones;  /* 5   bit i set when milestone i was paid */
  uint16_t fee_bps;             /* 6 */
  uint64_t escrow_id;           /* 8 */
  SolPubkey creator;            /* 16 */
  SolPubkey counterparty;       /* 48 */
  SolPubkey arbiter;            /* 80 */
  SolPubkey fee_recipient;      /* 112 */
  uint64_t amount;              /* 144 total locked at creation */
  uint64_t paid_out;            /* 152 released (gross, fee included) or refunded so far */
  int64_t deadline;             /* 160 unix seconds */
  int64_t created_at;           /* 168 unix seconds */
  uint8_t terms_hash[32];       /* 176 SHA-256 of the terms */
  uint64_t milestones[MAX_MILESTONES]; /* 208 */
} EscrowState;

_Static_assert(sizeof(EscrowState) == 272, "escrow state layout");
_Static_assert(__builtin_offsetof(EscrowState, escrow_id) == 8, "escrow state layout");
_Static_assert(__builtin_offsetof(EscrowState, amount) == 144, "escrow state layout");
_Static_assert(__builtin_offsetof(EscrowState, terms_hash) == 176, "escrow state layout");
_Static_assert(__builtin_offsetof(EscrowState, milestones) == 208, "escrow state layout");

#define ESCROW_SEED "escrow"
#define ESCROW_SEED_LEN 6

/* What a payout moved, for the events. */
typedef struct {
  uint64_t to_counterparty;
  uint64_t fee;
  uint64_t to_creator;
} Payout;

/* ---- support.c ---------------------------------------------------------- */
uint64_t escrow_load(const SolParameters *params, uint64_t index, EscrowState **state);
uint64_t escrow_now(int64_t *unix_timestamp);
uint64_t escrow_require_account(const SolAccountInfo *account, const SolPubkey *expected, uint64_t wrong_key_error);

/* ---- create.c ----------------------------------------------------------- */
uint64_t escrow_create(SolParameters *params, bool with_milestones);

/* ---- lifecycle.c -------------------------------------------------------- */
uint64_t escrow_accept(SolParameters *params);
uint64_t escrow_dispute(SolParameters *params);

/* ---- payout.c ----------------------------------------------------------- */
uint64_t escrow_release(SolParameters *params);
uint64_t escrow_release_milestone(SolParameters *params);
uint64_t escrow_refund(SolParameters *params);
uint64_t escrow_resolve(SolParameters *params);

/* ---- events.c ----------------------------------------------------------- */
void emit_created(const SolPubkey *escrow, const EscrowState *state);
void emit_accepted(const SolPubkey *escrow, const EscrowState *state);
void emit_released(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *by,
                   const Payout *payout, uint8_t milestone_index);
void emit_refunded(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *by, uint64_t refunded);
void emit_disputed(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *by);
void emit_resolved(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *arbiter,
                   const Payout *payout);
