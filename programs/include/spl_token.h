#pragma once
/* SPL Token accounts and mints as the programs read them (spl_token.c, spl_mint.c, spl_token_account.c).
 * Offsets are those of the token program's packed layouts: account = mint [0], owner [32], amount u64 [64], delegate COption [72],
 * state u8 [108], close authority COption [129]; mint = authority COption [0], supply u64 [36],
 * decimals u8 [44], initialized u8 [45], freeze authority COption [46]. */
#include <solana_sdk.h>

#define TOKEN_ACCOUNT_SIZE 165
#define MINT_SIZE 82

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
bool is_token_program(const SolPubkey *key);

/* COption's u32 tag: 0 is None. */
static inline bool coption_is_none(const uint8_t *tag) {
  return tag[0] == 0 && tag[1] == 0 && tag[2] == 0 && tag[3] == 0;
}

static inline uint64_t token_account_amount(const SolAccountInfo *account) {
  return sol_read_u64(account->data + 64);
}

static inline uint64_t mint_supply(const SolAccountInfo *mint) {
  return sol_read_u64(mint->data + 36);
}

static inline uint8_t mint_decimals(const SolAccountInfo *mint) {
  return mint->data[44];
}

/* An initialized mint of the token program. */
bool is_initialized_mint(const SolAccountInfo *mint);

/* A fresh mint a program will issue: authority `authority`, no supply, no freeze authority. */
bool is_fresh_mint(const SolAccountInfo *mint, const SolPubkey *authority);

/* An initialized token account of `mint` owned by `owner`, with no delegate and no close authority, so
 * nobody but `owner` can move or close what it holds (the programs' vaults). */
bool is_vault_account(const SolAccountInfo *account, const SolPubkey *mint, const SolPubkey *owner);
