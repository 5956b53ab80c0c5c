#pragma once
/* Accounts a program owns: its PDAs' addresses and state (program_account.c). */
#include <solana_sdk.h>

/* Whether `key` is the PDA of `seeds` under `program_id` (the canonical bump, written to `bump`). */
bool pda_matches(const SolSignerSeed *seeds, uint64_t seeds_len, const SolPubkey *program_id, const SolPubkey *key,
                 uint8_t *bump);

/* An address nobody created yet: no lamports, no data, not ours (so create_account cannot be replayed). */
bool is_unused_account(const SolAccountInfo *account, const SolPubkey *program_id);

/* Moves lamports out of an account the program owns: the runtime lets the owner debit it directly, no CPI.
 * The caller has checked that `from` keeps what it must (its rent reserve, what it still owes). */
static inline void move_lamports(SolAccountInfo *from, SolAccountInfo *to, uint64_t amount) {
  *from->lamports -= amount;
  *to->lamports += amount;
}

/* The state of an account `program_id` owns, `size` bytes long and starting with the tag byte `tag`;
 * NULL when it is anything else (an attacker can pass any account). */
void *program_account_state(const SolAccountInfo *account, const SolPubkey *program_id, uint64_t size, uint8_t tag);
