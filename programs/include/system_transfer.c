/* System program transfer by cross-program invocation. Instruction data (bincode): u32 tag 2, lamports u64. */
#include "system_cpi.h"

enum { SYSTEM_IX_TRANSFER = 2 };

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
