/* SPL Token transfer, mint_to and burn by cross-program invocation. */
#include "token_cpi.h"

enum { TOKEN_IX_TRANSFER = 3, TOKEN_IX_MINT_TO = 7, TOKEN_IX_BURN = 8 };

/* noinline: one body for the three instructions, not a copy in each (a program links all three). */
__attribute__((noinline)) static uint64_t invoke_amount(uint8_t tag, const TokenCpi *cpi, uint64_t amount) {
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
