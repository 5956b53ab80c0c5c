/**
 * Escrow routes (spec: Escrow helpers; Wallets `/escrows`). Each helper assembles the escrow intent
 * from its body into the body of a transaction request (`escrowHelpers`); the pipeline mounts them
 * (pipeline/escrowHelpersHttp.ts), creating the transaction (policy included), signed by the custodied
 * wallet `walletId`, and answering like POST /transactions, so adapters never import the pipeline.
 * `GET /wallets/<id>/escrows` lists the wallet's escrow records.
 */
import { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { ArrayPageQuery, Uuid } from "../../../schemas/common.js"
import { NotFound, UpstreamUnavailable, ValidationError } from "../../../schemas/errors.js"
import { EscrowNumericId } from "../../../schemas/intent.js"
import { Caller } from "../../gateway/caller.js"
import { ok } from "../../gateway/envelope.js"
import { decodeQuery, decodeWith, jsonBody, pathParam } from "../../gateway/request.js"
import { route } from "../../gateway/route.js"
import { EscrowApi } from "../../../schemas/api/escrow.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import type { EscrowTransactionType } from "./adapter.js"
import { escrowAccountFact } from "./buildWithChain.js"
import { EscrowRepo, toEscrowRecord } from "./escrowRepo.js"
import {
  EscrowByCreatorHelperBody,
  EscrowCreateHelperBody,
  EscrowReleaseHelperBody,
  EscrowResolveHelperBody,
  HELPER_KEYS
} from "../../../schemas/api/escrowBodies.js"
import { findEscrowAddress } from "./pda.js"
import { EscrowProgram } from "./program.js"

interface HelperFields {
  readonly walletId: string
  readonly idempotencyKey?: string
  readonly requireApproval?: boolean
  readonly wallet?: string
  readonly walletAddress?: string
}

const escrowIdFromPath = pathParam("id", EscrowNumericId)

/** The path's numeric id; a body escrowNumericId must be the same. */
const escrowIdOf = (body: { readonly escrowNumericId?: string }) =>
  Effect.flatMap(escrowIdFromPath, (id) =>
    body.escrowNumericId === undefined || body.escrowNumericId === id
      ? Effect.succeed(id)
      : Effect.fail(new ValidationError({ message: `escrowNumericId: must match the escrow id in the path (${id})`, field: "escrowNumericId" }))
  )

/** `wallet` (or its alias `walletAddress`), when given, must be the public key of `walletId` (the one that signs). */
const checkSigner = (helper: HelperFields) =>
  Effect.gen(function* () {
    if (helper.wallet !== undefined && helper.walletAddress !== undefined && helper.wallet !== helper.walletAddress) {
      return yield* new ValidationError({ message: "walletAddress: must equal wallet when both are given", field: "walletAddress" })
    }
    const [field, address] = helper.wallet !== undefined ? ["wallet", helper.wallet] : ["walletAddress", helper.walletAddress]
    if (address === undefined) return
    const stored = yield* (yield* WalletRepo).find(helper.walletId, (yield* Caller).readTenant)
    if (stored !== undefined && stored.wallet.publicKey !== address) {
      return yield* new ValidationError({ message: `${field}: is not the public key of wallet ${helper.walletId} (${stored.wallet.publicKey})`, field })
    }
  })

/**
 * A `type` transaction of protocol escrow for `intent`: the request as POST /transactions takes it,
 * and the signer check the pipeline runs just before decoding it (as part of the create).
 */
const submitEscrow = (type: EscrowTransactionType, helper: HelperFields, intent: Record<string, unknown>) =>
  Effect.succeed({
    checkSigner: checkSigner(helper),
    request: {
      walletId: helper.walletId,
      type,
      protocol: "escrow",
      intent,
      ...(helper.idempotencyKey === undefined ? {} : { idempotencyKey: helper.idempotencyKey }),
      ...(helper.requireApproval === undefined ? {} : { requireApproval: helper.requireApproval })
    }
  })

const byCreatorHelper = (type: "accept_escrow" | "refund_escrow" | "dispute_escrow") =>
  Effect.gen(function* () {
    const body = yield* Effect.flatMap(jsonBody, (raw) => decodeWith(EscrowByCreatorHelperBody, raw))
    const escrowNumericId = yield* escrowIdOf(body)
    return yield* submitEscrow(type, body, { escrowNumericId, creator: body.creator })
  })

/** The counterparty recorded on chain, for a resolve body without one. */
const recordedCounterparty = (creator: string, escrowNumericId: string) =>
  Effect.gen(function* () {
    const program = yield* EscrowProgram
    const { address } = findEscrowAddress(program.programId, new PublicKey(creator), BigInt(escrowNumericId))
    const [account] = yield* (yield* ChainFacts).accounts([address.toBase58()]).pipe(
      Effect.mapError((error) => new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` }))
    )
    const fact = escrowAccountFact(account ?? null, program.programId)
    if (fact.kind !== "escrow") return yield* new NotFound({ resource: "escrow", id: `${escrowNumericId} of creator ${creator}` })
    return fact.state.counterparty.toBase58()
  })

/** The helpers: each route's declaration and the transaction request its body makes. */
export const escrowHelpers = [
  [
    EscrowApi.create,
    Effect.gen(function* () {
      const raw = yield* jsonBody
      const body = yield* decodeWith(EscrowCreateHelperBody, raw)
      // The intent is the raw body without the helper's own keys, decoded again by the pipeline's intent schema.
      const intent = Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([key]) => !(HELPER_KEYS as ReadonlyArray<string>).includes(key)))
      return yield* submitEscrow("create_escrow", body, intent)
    })
  ],
  [EscrowApi.accept, byCreatorHelper("accept_escrow")],
  [EscrowApi.refund, byCreatorHelper("refund_escrow")],
  [EscrowApi.dispute, byCreatorHelper("dispute_escrow")],
  [
    EscrowApi.release,
    Effect.gen(function* () {
      const body = yield* Effect.flatMap(jsonBody, (raw) => decodeWith(EscrowReleaseHelperBody, raw))
      const escrowNumericId = yield* escrowIdOf(body)
      return yield* submitEscrow("release_escrow", body, {
        escrowNumericId, creator: body.creator, counterparty: body.counterparty, feeRecipient: body.feeRecipient
      })
    })
  ],
  [
    EscrowApi.resolve,
    Effect.gen(function* () {
      const body = yield* Effect.flatMap(jsonBody, (raw) => decodeWith(EscrowResolveHelperBody, raw))
      const escrowNumericId = yield* escrowIdOf(body)
      const counterparty = body.counterparty ?? (yield* recordedCounterparty(body.creator, escrowNumericId))
      // The creator winning means the locked lamports go back to the creator.
      const decision = body.winnerIsCreator ? "refund" : "release"
      return yield* submitEscrow("resolve_dispute", body, { escrowNumericId, creator: body.creator, counterparty, decision })
    })
  ]
] as const

export const escrowRoutes = [
  route(
    EscrowApi.listByWallet,
    Effect.gen(function* () {
      const walletId = yield* pathParam("walletId", Uuid)
      const stored = yield* (yield* WalletRepo).find(walletId, (yield* Caller).readTenant)
      if (stored === undefined) return yield* new NotFound({ resource: "wallet", id: walletId })
      const query = yield* decodeQuery(ArrayPageQuery)
      const page = yield* (yield* EscrowRepo).pageForWallet(stored.tenantId, walletId, stored.wallet.publicKey, { ...query, offset: 0 })
      const headers: Record<string, string> = page.nextCursor === null ? {} : { "x-next-cursor": page.nextCursor }
      return { ...ok(page.rows.map((row) => toEscrowRecord(row, walletId))), headers }
    })
  )
]
