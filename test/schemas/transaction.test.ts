import { describe, expect, it } from "vitest"
import * as Schema from "effect/Schema"
import { CreateTransactionBody, RejectBody, Transaction, TRANSACTION_STATUSES } from "../../schemas/transaction.js"
import { decodeOk, issuesOf, pathsOf } from "./decode.js"

const WALLET_ID = "5f0c6c1e-8f4b-4c1e-9a57-1f7d3c2b9a10"
const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

describe("CreateTransactionBody", () => {
  const body = {
    walletId: WALLET_ID,
    type: "transfer_sol",
    protocol: "system-program",
    intent: { destination: DESTINATION, lamports: 1000 }
  }

  it("decodes a valid body and applies the defaults", () => {
    expect(decodeOk(CreateTransactionBody, body)).toEqual({ ...body, gasless: false, requireApproval: false })
  })

  it("names walletId, type and protocol when they are wrong", () => {
    expect(pathsOf(CreateTransactionBody, { ...body, walletId: "not-a-uuid", type: "nft_burn", protocol: "moon" })).toEqual([
      "protocol",
      "type",
      "walletId"
    ])
    expect(issuesOf(CreateTransactionBody, { ...body, walletId: "x" })).toEqual([{ path: "walletId", message: "must be a UUID" }])
  })

  it("requires intent to be an object and bounds the idempotency key", () => {
    expect(issuesOf(CreateTransactionBody, { ...body, intent: "send it" })).toEqual([
      { path: "intent", message: "must be a JSON object" }
    ])
    expect(pathsOf(CreateTransactionBody, { ...body, idempotencyKey: "" })).toEqual(["idempotencyKey"])
    expect(pathsOf(CreateTransactionBody, { ...body, idempotencyKey: "k".repeat(129) })).toEqual(["idempotencyKey"])
    expect(decodeOk(CreateTransactionBody, { ...body, idempotencyKey: "k".repeat(128) }).idempotencyKey).toHaveLength(128)
  })

  it("reports a missing required field by name", () => {
    const { walletId: _omitted, ...withoutWallet } = body
    expect(issuesOf(CreateTransactionBody, withoutWallet)).toEqual([{ path: "walletId", message: "is missing" }])
  })
})

describe("Transaction record", () => {
  it("has the eight statuses of the spec", () => {
    expect(TRANSACTION_STATUSES).toEqual([
      "pending",
      "simulating",
      "policy_eval",
      "approval_gate",
      "signing",
      "submitting",
      "confirmed",
      "failed"
    ])
  })

  it("round-trips a confirmed record with exact balances", () => {
    const wire = {
      id: "0b8e2c6a-3d7f-4a9b-8c1d-2e3f4a5b6c7d",
      walletId: WALLET_ID,
      type: "transfer_sol",
      protocol: "system-program",
      intent: { destination: DESTINATION, lamports: 1000 },
      gasless: false,
      status: "confirmed",
      stage: "completed",
      failedAt: null,
      errorCode: null,
      awaitingApproval: false,
      preBalanceLamports: "18446744073709551615",
      postBalanceLamports: 5000,
      attempts: 1,
      history: [{ status: "pending", stage: "validation", at: "2025-01-01T00:00:00.000Z" }],
      createdAt: "2025-01-01T00:00:00.000Z",
      updatedAt: "2025-01-01T00:00:01.000Z",
      confirmedAt: "2025-01-01T00:00:01.000Z"
    }
    const decoded = decodeOk(Transaction, wire)
    expect(decoded.preBalanceLamports).toBe(18446744073709551615n)
    expect(Schema.encodeSync(Transaction)(decoded)).toEqual(wire)
  })
})

describe("RejectBody", () => {
  it("accepts no reason or a 1-256 character reason", () => {
    expect(decodeOk(RejectBody, {})).toEqual({})
    expect(pathsOf(RejectBody, { reason: "" })).toEqual(["reason"])
  })
})
