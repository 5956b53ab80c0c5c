/* AMM program: the SPL Token accounts it reads and the token instructions it invokes. */
#include "amm.h"

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const uint8_t TOKEN_PROGRAM_ID[SIZE_PUBKEY] = {6,   221, 246, 225, 215, 101, 161, 147, 217, 203, 225,
                                                      70,  206, 235, 121, 172, 28,  180, 133, 237, 95,  91,
                                                      55,  145, 58,  140, 245, 133, 126, 255, 0,   169};

enum { TOKEN_IX_TRANSFER = 3, TOKEN_IX_MINT_TO = 7, TOKEN_IX_BURN = 8 };

bool is_token_program(const SolPubkey *key) {
  return sol_memeq(key->x, TOKEN_PROGRAM_ID, SIZE_PUBKEY);
}

/* Token account: mint [32], owner [32], amount u64 at 64. */
uint64_t token_amount(const SolAccountInfo *account) {
  return sol_read_u64(account->data + 64);
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

uint64_t token_transfer(const TokenCpi *cpi, uint64_t amount) {
  return invoke_amount(TOKEN_IX_TRANSFER, cpi, amount);
}

uint64_t token_mint_to(const TokenCpi *cpi, uint64_t amount) {
  return invoke_amount(TOKEN_IX_MINT_TO, cpi, amount);
}

uint64_t token_burn(const TokenCpi *cpi, uint64_t amount) {
  return invoke_amount(TOKEN_IX_BURN, cpi, amount);
}
