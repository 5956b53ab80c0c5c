/* Escrow program: events, logged with sol_log_data as two slices: the event name, then a fixed
 * little-endian payload that starts with escrow address, creator and escrow id (see README.md). */
#include "escrow.h"

#define MAX_EVENT_PAYLOAD 256

typedef struct {
  uint8_t bytes[MAX_EVENT_PAYLOAD];
  uint64_t length;
} EventPayload;

static void put_bytes(EventPayload *p, const void *bytes, uint64_t len) {
  sol_memcpy(p->bytes + p->length, bytes, len);
  p->length += len;
}

static void put_u64(EventPayload *p, uint64_t value) {
  sol_write_u64(p->bytes + p->length, value);
  p->length += 8;
}

static void put_u8(EventPayload *p, uint8_t value) {
  p->bytes[p->length] = value;
  p->length += 1;
}

static void begin(EventPayload *p, const SolPubkey *escrow, const EscrowState *state) {
  p->length = 0;
  put_bytes(p, escrow, SIZE_PUBKEY);
  put_bytes(p, &state->creator, SIZE_PUBKEY);
  put_u64(p, state->escrow_id);
}

static void emit(const char *name, const EventPayload *p) {
  SolBytes slices[2] = {{(const uint8_t *)name, sol_strlen(name)}, {p->bytes, p->length}};
  sol_log_data(slices, 2);
}

void emit_created(const SolPubkey *escrow, const EscrowState *state) {
  EventPayload p;
  begin(&p, escrow, state);
  put_bytes(&p, &state->counterparty, SIZE_PUBKEY);
  put_bytes(&p, &state->arbiter, SIZE_PUBKEY);
  put_bytes(&p, &state->fee_recipient, SIZE_PUBKEY);
  put_u64(&p, state->amount);
  sol_write_u16(p.bytes + p.length, state->fee_bps);
  p.length += 2;
  put_u64(&p, (uint64_t)state->deadline);
  put_u8(&p, state->milestone_count);
  put_bytes(&p, state->terms_hash, 32);
  emit("EscrowCreated", &p);
}

void emit_accepted(const SolPubkey *escrow, const EscrowState *state) {
  EventPayload p;
  begin(&p, escrow, state);
  put_bytes(&p, &state->counterparty, SIZE_PUBKEY);
  emit("EscrowAccepted", &p);
}

void emit_released(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *by,
                   const Payout *payout, uint8_t milestone_index) {
  EventPayload p;
  begin(&p, escrow, state);
  put_bytes(&p, by, SIZE_PUBKEY);
  put_bytes(&p, &state->counterparty, SIZE_PUBKEY);
  put_u64(&p, payout->to_counterparty);
  put_u64(&p, payout->fee);
  put_u8(&p, milestone_index);
  put_u8(&p, state->status);
  emit("EscrowReleased", &p);
}

void emit_refunded(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *by, uint64_t refunded) {
  EventPayload p;
  begin(&p, escrow, state);
  put_bytes(&p, by, SIZE_PUBKEY);
  put_u64(&p, refunded);
  emit("EscrowRefunded", &p);
}

void emit_disputed(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *by) {
  EventPayload p;
  begin(&p, escrow, state);
  put_bytes(&p, by, SIZE_PUBKEY);
  emit("EscrowDisputed", &p);
}

void emit_resolved(const SolPubkey *escrow, const EscrowState *state, const SolPubkey *arbiter,
                   const Payout *payout) {
  EventPayload p;
  begin(&p, escrow, state);
  put_bytes(&p, arbiter, SIZE_PUBKEY);
  put_u8(&p, state->resolution);
  put_u64(&p, payout->to_counterparty);
  put_u64(&p, payout->fee);
  put_u64(&p, payout->to_creator);
  emit("DisputeResolved", &p);
}
