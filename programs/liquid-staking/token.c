/* Liquid-staking program: the SPL Token and System program instructions it invokes. */
#include "staking.h"

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const uint8_t TOKEN_PROGRAM_ID[SIZE_PUBKEY] = {6,   221, 246, 225, 215, 101, 161, 147, 217, 203, 225,
                                                      70,  206, 235, 121, 172, 28,  180, 133, 237, 95,  91,
                                                      55,  145, 58,  140, 245, 133, 126, 255, 0,   169};

enum { TOKEN_IX_MINT_TO = 7, TOKEN_IX_BURN = 8, SYSTEM_IX_TRANSFER = 2 };

bool is_token_program(const SolPubkey *key) {
  return sol_memeq(key->x, TOKEN_PROGRAM_ID, SIZE_PUBKEY);
}

bool is_system_program(const SolPubkey *key) {
  for (int i = 0; i < SIZE_PUBKEY; i++) {
    if (key->x[i] != 0) return false;
  }
  return true;
}

/* Mint: mint authority COption [36], supply u64 at 36. */
uint64_t mint_supply(const SolAccountInfo *mint) {
  return sol_read_u64(mint->data + 36);
}

/* One token instruction (tag + u64 amount) over three accounts, the third signing. */
static uint64_t invoke_amount(uint8_t tag, const TokenCpi *cpi, uint64_t amount) {
  uint8_t data[9];
  data[0] = tag;
  sol_write_u64(data + 1, amount);
  SolAccountMeta metas[3] = {{cpi->first->key, true, false}, {cpi->second->key, true, false}, {cpi->authority->key, false, true}};
  SolInstruction instruction = {cpi->token_program->key, metas, 3, data, sizeof(data)};
  SolAccountInfo infos[3];
  infos[0] = *cpi->first;
  infos[1] = *cpi->second;
  infos[2] = *cpi->authority;
  return sol_invoke_signed_c(&instruction, infos, 3, cpi->signer, cpi->signer == NULL ? 0 : 1);
}

uint64_t token_mint_to(const TokenCpi *cpi, uint64_t amount) {
  return invoke_amount(TOKEN_IX_MINT_TO, cpi, amount);
}

uint64_t token_burn(const TokenCpi *cpi, uint64_t amount) {
  return invoke_amount(TOKEN_IX_BURN, cpi, amount);
}

/* System transfer (u32 tag 2, u64 lamports): `from` signed the outer transaction. */
uint64_t system_transfer(SolAccountInfo *from, SolAccountInfo *to, const SolAccountInfo *system_program, uint64_t lamports) {
  uint8_t data[12];
  sol_memset(data, 0, sizeof(data));
  data[0] = SYSTEM_IX_TRANSFER;
  sol_write_u64(data + 4, lamports);
  SolAccountMeta metas[2] = {{from->key, true, true}, {to->key, true, false}};
  SolInstruction instruction = {system_program->key, metas, 2, data, sizeof(data)};
  SolAccountInfo infos[2];
  infos[0] = *from;
  infos[1] = *to;
  return sol_invoke_signed_c(&instruction, infos, 2, NULL, 0);
}
