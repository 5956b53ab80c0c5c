/* The SPL Token program's id (the mint and token account checks live in spl_mint.c and spl_token_account.c,
 * separate objects so a program links only the checks it makes). */
#include "spl_token.h"

static const uint8_t TOKEN_PROGRAM_ID[SIZE_PUBKEY] = {6,   221, 246, 225, 215, 101, 161, 147, 217, 203, 225,
                                                      70,  206, 235, 121, 172, 28,  180, 133, 237, 95,  91,
                                                      55,  145, 58,  140, 245, 133, 126, 255, 0,   169};

bool is_token_program(const SolPubkey *key) {
  return sol_memeq(key->x, TOKEN_PROGRAM_ID, SIZE_PUBKEY);
}
