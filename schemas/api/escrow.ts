/**
 * Escrow helper endpoints (spec: Escrow helpers): each assembles an escrow intent and answers like
 * POST /transactions (the transaction record; 202 at the approval gate). Their bodies are not declared
 * here yet (src/protocols/escrow/helperBodies.ts decodes them).
 */
import { EscrowPathParams } from "../escrow.js"
import { endpoint } from "./endpoint.js"
import { CreateWaitQuery, TransactionRecord } from "./transactions.js"

const helper = (path: string, summary: string, withId: boolean) =>
  endpoint("escrow", "POST", path, {
    summary,
    ...(withId ? { params: EscrowPathParams } : {}),
    query: CreateWaitQuery,
    success: TransactionRecord,
    successStatuses: [201, 202, 200],
    recordOnFailure: true
  })

export const EscrowApi = {
  create: helper("/api/v1/escrow/create", "Create an escrow (a create_escrow transaction)", false),
  accept: helper("/api/v1/escrow/:id/accept", "Accept an escrow as its counterparty", true),
  refund: helper("/api/v1/escrow/:id/refund", "Refund an escrow to its creator", true),
  dispute: helper("/api/v1/escrow/:id/dispute", "Dispute an escrow", true),
  release: helper("/api/v1/escrow/:id/release", "Release an escrow (or a milestone) to the counterparty", true),
  resolve: helper("/api/v1/escrow/:id/resolve", "Resolve a disputed escrow as its arbiter", true)
}
