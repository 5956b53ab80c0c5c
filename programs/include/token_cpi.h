#pragma once
/* The SPL Token instructions the programs invoke (token_cpi.c): each is a tag and a u64 amount over
 * two writable accounts and a signing authority. */
#include <solana_sdk.h>

/* The accounts of one token instruction (a struct: SBPF functions take at most 5 arguments). */
typedef struct {
  SolAccountInfo *first;
  SolAccountInfo *second;
  SolAccountInfo *authority;
  const SolAccountInfo *token_program;
  const SolSignerSeeds *signer; /* the program's PDA seeds when its PDA is the authority, else NULL */
} TokenCpi;

uint64_t token_transfer(const TokenCpi *cpi, uint64_t amount); /* from first to second */
uint64_t token_mint_to(const TokenCpi *cpi, uint64_t amount);  /* mint = first, to second */
uint64_t token_burn(const TokenCpi *cpi, uint64_t amount);     /* account = first, mint = second */
