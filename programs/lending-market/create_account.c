/* Lending-market program: creating its PDAs (reserves, obligations), the payer funding their rent. */
#include "lending.h"

uint64_t create_program_account(const SolParameters *params, const CreateCpi *cpi) {
  uint64_t rent;
  if (!rent_exempt_minimum(cpi->size, &rent)) return ERR_UNSUPPORTED_RENT;
  if (*cpi->payer->lamports < rent) return ERR_INSUFFICIENT_FUNDS;
  CreateAccountCpi create = {cpi->payer, cpi->account, cpi->system_program, cpi->signer, params->program_id, rent, cpi->size};
  return system_create_account(&create);
}
