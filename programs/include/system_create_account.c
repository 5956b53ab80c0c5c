/* System program create_account by cross-program invocation (its own file: the linker takes whole objects,
 * and not every program that creates accounts transfers lamports). Instruction data (bincode): u32 tag 0,
 * lamports u64, space u64, owner [32]. */
#include "system_cpi.h"

enum { SYSTEM_IX_CREATE_ACCOUNT = 0 };

uint64_t system_create_account(const CreateAccountCpi *cpi) {
  uint8_t data[52];
  sol_memset(data, 0, sizeof(data));
  data[0] = SYSTEM_IX_CREATE_ACCOUNT;
  sol_write_u64(data + 4, cpi->lamports);
  sol_write_u64(data + 12, cpi->space);
  sol_memcpy(data + 20, cpi->owner, SIZE_PUBKEY);
  SolAccountMeta metas[2] = {{cpi->payer->key, true, true}, {cpi->account->key, true, true}};
  SolInstruction instruction = {cpi->system_program->key, metas, 2, data, sizeof(data)};
  SolAccountInfo infos[2];
  infos[0] = *cpi->payer;
  infos[1] = *cpi->account;
  return sol_invoke_signed_c(&instruction, infos, 2, cpi->signer, 1);
}
