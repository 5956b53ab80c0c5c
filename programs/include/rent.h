#pragma once
/* The rent-exempt minimum of a new account, from the Rent sysvar (rent.c). */
#include <solana_sdk.h>

/* (128 + data_len) * lamports_per_byte_year * exemption_threshold. False when the sysvar is unreadable or
 * outside what the integer computation supports (each program maps that to its own error code). */
bool rent_exempt_minimum(uint64_t data_len, uint64_t *lamports);
