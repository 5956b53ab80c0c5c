/* Lending-market program: the SPL Token and System program instructions it invokes. */
#include "lending.h"

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const uint8_t TOKEN_PROGRAM_ID[SIZE_PUBKEY] = {6,   221, 246, 225, 215, 101, 161, 147, 217, 203, 225,
                                                      70,  206, 235, 121, 172, 28,  180, 133, 237, 95,  91,
                                                      55,  145, 58,  140, 245, 133, 126, 255, 0,   169};

enum { TOKEN_IX_TRANSFER = 3 };

bool is_token_program(const SolPubkey *key) {
  return sol_memeq(key->x, TOKEN_PROGRAM_ID, SIZE_PUBKEY);
}

bool is_system_program(const SolPubkey *key) {
  for (int i = 0; i < SIZE_PUBKEY; i++) {
    if (key->x[i] != 0) return false;
  }
  return true;
}

/* Token account: mint [32], owner [32], amount u64 at 64. */
uint64_t token_account_amount(const SolAccountInfo *account) {
  return sol_read_u64(account->data + 64);
}

uint64_t token_transfer(const TransferCpi *cpi, uint64_t amount) {
  uint8_t data[9];
  data[0] = TOKEN_IX_TRANSFER;
  sol_write_u64(data + 1, amount);
  SolAccountMeta metas[3] = {{cpi->source->key, true, false}, {cpi->destination->key, true, false}, {cpi->authority->key, false, true}};
  SolInstruction instruction = {cpi->token_program->key, metas, 3, data, sizeof(data)};
  SolAccountInfo infos[3];
  infos[0] = *cpi->source;
  infos[1] = *cpi->destination;
  infos[2] = *cpi->authority;
  return sol_invoke_signed_c(&instruction, infos, 3, cpi->signer, cpi->signer == NULL ? 0 : 1);
}

/* System create_account (u32 tag 0, lamports u64, space u64, owner [32]). */
uint64_t create_program_account(const SolParameters *params, const CreateCpi *cpi) {
  SolAccountInfo *payer = cpi->payer;
  SolAccountInfo *account = cpi->account;
  uint64_t size = cpi->size;
  uint64_t rent;
  uint64_t result = rent_exempt_minimum(size, &rent);
  if (result != SUCCESS) return result;
  if (*payer->lamports < rent) return ERR_INSUFFICIENT_FUNDS;
  uint8_t data[52];
  sol_memset(data, 0, sizeof(data));
  sol_write_u64(data + 4, rent);
  sol_write_u64(data + 12, size);
  sol_memcpy(data + 20, params->program_id, SIZE_PUBKEY);
  SolAccountMeta metas[2] = {{payer->key, true, true}, {account->key, true, true}};
  SolInstruction instruction = {cpi->system_program->key, metas, 2, data, sizeof(data)};
  SolAccountInfo infos[2];
  infos[0] = *payer;
  infos[1] = *account;
  return sol_invoke_signed_c(&instruction, infos, 2, cpi->signer, 1);
}
