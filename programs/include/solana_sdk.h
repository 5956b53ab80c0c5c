#pragma once
/*
 * Our own minimal C header for SBPFv0 programs built with Debian clang
 * (-target bpfel -mcpu=v2) and linked by programs/linker.
 *
 * It covers the runtime's aligned input serialization (loader v2/v3), the
 * syscalls our programs use, and the return-value convention. Struct layouts
 * match what the runtime's syscalls read (C ABI, LP64).
 *
 * clang 14 checks a 512-byte stack per function: keep big arrays on the heap
 * (sol_heap) and mark large handlers noinline so their frames stay separate.
 */

typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef signed short int16_t;
typedef unsigned short uint16_t;
typedef signed int int32_t;
typedef unsigned int uint32_t;
typedef signed long int int64_t;
typedef unsigned long int uint64_t;
typedef uint64_t size_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

_Static_assert(sizeof(uint64_t) == 8, "LP64 data model required");
_Static_assert(sizeof(void *) == 8, "LP64 data model required");

/* ---- return values ----------------------------------------------------- */
/* 0 is success. A value below 2^32 is ProgramError::Custom(value); builtin
 * errors live in the upper 32 bits. */
#define SUCCESS 0
#define TO_BUILTIN(error) ((uint64_t)(error) << 32)
#define ERROR_INVALID_ARGUMENT TO_BUILTIN(2)
#define ERROR_INVALID_INSTRUCTION_DATA TO_BUILTIN(3)
#define ERROR_INVALID_ACCOUNT_DATA TO_BUILTIN(4)
#define ERROR_ACCOUNT_DATA_TOO_SMALL TO_BUILTIN(5)
#define ERROR_INSUFFICIENT_FUNDS TO_BUILTIN(6)
#define ERROR_INCORRECT_PROGRAM_ID TO_BUILTIN(7)
#define ERROR_MISSING_REQUIRED_SIGNATURES TO_BUILTIN(8)
#define ERROR_ACCOUNT_ALREADY_INITIALIZED TO_BUILTIN(9)
#define ERROR_UNINITIALIZED_ACCOUNT TO_BUILTIN(10)
#define ERROR_NOT_ENOUGH_ACCOUNT_KEYS TO_BUILTIN(11)

/* ---- keys and accounts ------------------------------------------------- */
#define SIZE_PUBKEY 32
typedef struct {
  uint8_t x[SIZE_PUBKEY];
} SolPubkey;

/* Same layout as the runtime's C AccountInfo (used by sol_invoke_signed_c):
 * every pointer points into the serialized input so CPI can map it back. */
typedef struct {
  SolPubkey *key;
  uint64_t *lamports;
  uint64_t data_len;
  uint8_t *data;
  SolPubkey *owner;
  uint64_t rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

typedef struct {
  SolAccountInfo *ka;         /* parsed accounts (duplicates resolved) */
  uint64_t ka_num;            /* number of accounts in the instruction */
  const uint8_t *data;        /* instruction data */
  uint64_t data_len;
  const SolPubkey *program_id;
} SolParameters;

/* ---- memory helpers (no libc; -fno-builtin keeps loops as loops) ------- */
static inline void sol_memcpy(void *dst, const void *src, uint64_t len) {
  uint8_t *d = (uint8_t *)dst;
  const uint8_t *s = (const uint8_t *)src;
  for (uint64_t i = 0; i < len; i++) d[i] = s[i];
}

static inline void sol_memset(void *dst, uint8_t value, uint64_t len) {
  uint8_t *d = (uint8_t *)dst;
  for (uint64_t i = 0; i < len; i++) d[i] = value;
}

static inline bool sol_memeq(const void *a, const void *b, uint64_t len) {
  const uint8_t *x = (const uint8_t *)a;
  const uint8_t *y = (const uint8_t *)b;
  for (uint64_t i = 0; i < len; i++) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

static inline bool SolPubkey_same(const SolPubkey *a, const SolPubkey *b) {
  return sol_memeq(a->x, b->x, SIZE_PUBKEY);
}

static inline uint64_t sol_strlen(const char *s) {
  uint64_t n = 0;
  while (s[n]) n++;
  return n;
}

/* Little-endian reads and writes at any alignment. */
static inline uint64_t sol_read_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static inline uint16_t sol_read_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}
static inline void sol_write_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) {
    p[i] = (uint8_t)v;
    v >>= 8;
  }
}
static inline void sol_write_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

/* ---- heap: the runtime maps 32 KiB at this address for every program --- */
#define SOL_HEAP_START ((uint8_t *)0x300000000UL)
#define SOL_HEAP_LENGTH (32 * 1024)

/* ---- input deserialization --------------------------------------------- */
/* Aligned serialization, per account:
 *   u8 dup marker (0xff = first occurrence, else index of the original)
 *   unique:    u8 is_signer, u8 is_writable, u8 executable, 4 bytes padding,
 *              key[32], owner[32], u64 lamports, u64 data_len, data,
 *              10240 bytes realloc room, pad to 8, u64 rent_epoch
 *   duplicate: 7 bytes padding
 * then u64 instruction data length, the data, and the program id. */
#define MAX_PERMITTED_DATA_INCREASE (10 * 1024)
#define SOL_NON_DUP_MARKER 0xff

/* Parses up to max_accounts accounts into params->ka (caller-provided array,
 * usually on the heap); returns false if there are more accounts than that. */
static inline bool sol_deserialize(const uint8_t *input, SolParameters *params,
                                   uint64_t max_accounts) {
  uint64_t count = *(const uint64_t *)input;
  input += sizeof(uint64_t);
  if (count > max_accounts) return false;
  params->ka_num = count;
  for (uint64_t i = 0; i < count; i++) {
    SolAccountInfo *info = &params->ka[i];
    uint8_t dup = input[0];
    if (dup != SOL_NON_DUP_MARKER) {
      *info = params->ka[dup];
      input += 8;
      continue;
    }
    info->is_signer = input[1] != 0;
    info->is_writable = input[2] != 0;
    info->executable = input[3] != 0;
    input += 8;
    info->key = (SolPubkey *)input;
    input += SIZE_PUBKEY;
    info->owner = (SolPubkey *)input;
    input += SIZE_PUBKEY;
    info->lamports = (uint64_t *)input;
    input += sizeof(uint64_t);
    info->data_len = *(const uint64_t *)input;
    input += sizeof(uint64_t);
    info->data = (uint8_t *)input;
    input += info->data_len + MAX_PERMITTED_DATA_INCREASE;
    input = (const uint8_t *)(((uint64_t)input + 7) & ~7UL);
    info->rent_epoch = *(const uint64_t *)input;
    input += sizeof(uint64_t);
  }
  params->data_len = *(const uint64_t *)input;
  input += sizeof(uint64_t);
  params->data = input;
  input += params->data_len;
  params->program_id = (const SolPubkey *)input;
  return true;
}

/* ---- syscalls (resolved by the loader from their names' murmur3 hash) -- */
typedef struct {
  const uint8_t *addr;
  uint64_t len;
} SolBytes;

typedef struct {
  const uint8_t *addr;
  uint64_t len;
} SolSignerSeed;

typedef struct {
  const SolSignerSeed *addr;
  uint64_t len;
} SolSignerSeeds;

typedef struct {
  SolPubkey *pubkey;
  bool is_writable;
  bool is_signer;
} SolAccountMeta;

typedef struct {
  SolPubkey *program_id;
  SolAccountMeta *accounts;
  uint64_t account_len;
  uint8_t *data;
  uint64_t data_len;
} SolInstruction;

typedef struct {
  uint64_t slot;
  int64_t epoch_start_timestamp;
  uint64_t epoch;
  uint64_t leader_schedule_epoch;
  int64_t unix_timestamp;
} SolClock;

typedef struct {
  uint64_t lamports_per_byte_year;
  uint64_t exemption_threshold_f64_bits; /* an f64; BPF has no floating point */
  uint8_t burn_percent;
} SolRent;

void sol_log_(const char *message, uint64_t length);
void sol_log_64_(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
void sol_log_pubkey(const SolPubkey *key);
void sol_log_data(const SolBytes *slices, uint64_t count);
uint64_t sol_create_program_address(const SolSignerSeed *seeds, uint64_t seeds_len,
                                    const SolPubkey *program_id, SolPubkey *address);
uint64_t sol_try_find_program_address(const SolSignerSeed *seeds, uint64_t seeds_len,
                                      const SolPubkey *program_id, SolPubkey *address,
                                      uint8_t *bump_seed);
uint64_t sol_invoke_signed_c(const SolInstruction *instruction,
                             const SolAccountInfo *account_infos, int account_infos_len,
                             const SolSignerSeeds *signers_seeds, int signers_seeds_len);
uint64_t sol_get_clock_sysvar(SolClock *clock);
uint64_t sol_get_rent_sysvar(SolRent *rent);

#define sol_log(message) sol_log_(message, sol_strlen(message))
#define sol_log_64 sol_log_64_

/* Program entry point, exported by the linker as the ELF entry. */
uint64_t entrypoint(const uint8_t *input);
