#pragma once
/* The System program instructions the programs invoke (system_create_account.c, system_transfer.c). */
#include <solana_sdk.h>

/* The system program's id is all zeros (11111111111111111111111111111111). */
static inline bool is_system_program(const SolPubkey *key) {
  for (int i = 0; i < SIZE_PUBKEY; i++) {
    if (key->x[i] != 0) return false;
  }
  return true;
}

/* create_account of a PDA: `payer` signed the transaction, `signer` holds the PDA's seeds with its bump. */
typedef struct {
  SolAccountInfo *payer;
  SolAccountInfo *account;
  const SolAccountInfo *system_program;
  const SolSignerSeeds *signer;
  const SolPubkey *owner; /* the program that will own the account */
  uint64_t lamports;
  uint64_t space;
} CreateAccountCpi;

uint64_t system_create_account(const CreateAccountCpi *cpi);

/* transfer of `lamports` from `from` (a signer of the transaction) to `to`. */
uint64_t system_transfer(SolAccountInfo *from, SolAccountInfo *to, const SolAccountInfo *system_program, uint64_t lamports);
