/**
 * A ledger event of the escrow program as the service records it: the escrow operation it stands for
 * (the record's `state`) and an audit event `escrow.<EventName>` with JSON-safe fields.
 */
import { PublicKey } from "@solana/web3.js"
import type { EscrowOperation } from "../../../schemas/escrow.js"
import type { EscrowEvent } from "./events.js"

/** The escrow operation type an event reports. */
export const operationOf = (event: EscrowEvent): EscrowOperation => {
  switch (event.name) {
    case "EscrowCreated":
      return event.fields.milestoneCount > 0 ? "create_milestone_escrow" : "create_escrow"
    case "EscrowAccepted":
      return "accept_escrow"
    case "EscrowReleased":
      return event.fields.milestoneIndex === null ? "release_escrow" : "release_milestone"
    case "EscrowRefunded":
      return "refund_escrow"
    case "EscrowDisputed":
      return "dispute_escrow"
    case "DisputeResolved":
      return "resolve_dispute"
  }
}

/** Public keys as base58, u64/i64 as decimal strings: the audit metadata stays exact JSON. */
const jsonFields = (fields: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [
      key === "escrow" ? "escrowAddress" : key,
      value instanceof PublicKey ? value.toBase58() : typeof value === "bigint" ? value.toString() : value
    ])
  )

const summary = (event: EscrowEvent): string => {
  const id = `escrow ${event.fields.escrowId} of ${event.fields.creator.toBase58()}`
  switch (event.name) {
    case "EscrowCreated":
      return `${id} created: ${event.fields.amount} lamports locked for ${event.fields.counterparty.toBase58()}`
    case "EscrowAccepted":
      return `${id} accepted by ${event.fields.counterparty.toBase58()}`
    case "EscrowReleased":
      return `${id} released by ${event.fields.by.toBase58()}: ${event.fields.toCounterparty} lamports to the counterparty, fee ${event.fields.fee}`
    case "EscrowRefunded":
      return `${id} refunded by ${event.fields.by.toBase58()}: ${event.fields.refunded} lamports to the creator`
    case "EscrowDisputed":
      return `${id} disputed by ${event.fields.by.toBase58()}`
    case "DisputeResolved":
      return `${id} resolved (${event.fields.decision}) by the arbiter: ${event.fields.toCounterparty} to the counterparty, fee ${event.fields.fee}, ${event.fields.toCreator} to the creator`
  }
}

export interface EscrowAuditEvent {
  readonly eventType: string
  readonly message: string
  readonly escrowId: string
  readonly metadata: Record<string, unknown>
}

export const auditEventOf = (event: EscrowEvent, signature: string): EscrowAuditEvent => ({
  eventType: `escrow.${event.name}`,
  message: summary(event),
  escrowId: event.fields.escrowId.toString(),
  metadata: { event: event.name, operation: operationOf(event), signature, ...jsonFields(event.fields) }
})
