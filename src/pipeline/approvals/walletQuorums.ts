/**
 * Wallets' approval quorums (issue 31, table wallet_approval_quorums): how many distinct operators must
 * approve each transaction of a wallet at the gate (1 unless set; an active policy of the wallet may ask for
 * more with its `approvalsRequired`, and the larger applies). Raising it is any operator's act; lowering
 * it needs the deployment's operator key (tenant `*`, no x-tenant-id), so one operator of a tenant cannot undo
 * the four-eyes rule that binds them. A waiting transaction needs the larger of its own figure and the
 * wallet's current one: a quorum raised while it waited applies.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Forbidden, NotFound } from "../../../schemas/errors.js"
import type { CallerInfo } from "../../gateway/caller.js"
import { PolicyService } from "../../policy/policyService.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import { decodeRows, Timestamp } from "../../db/rowDecoding.js"

const QuorumRow = Schema.Struct({
  approvals_required: Schema.Number,
  updated_at: Timestamp,
  updated_by: Schema.String
})
type QuorumRow = typeof QuorumRow.Type

export class WalletQuorums extends Effect.Service<WalletQuorums>()("WalletQuorums", {
  dependencies: [PolicyService.Default, WalletRepo.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const wallets = yield* WalletRepo
    const policies = yield* PolicyService

    const row = (walletId: string) =>
      sql`SELECT approvals_required, updated_at, updated_by FROM wallet_approval_quorums WHERE wallet_id = ${walletId}`.pipe(
        decodeRows("wallet_approval_quorums", QuorumRow),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /** The wallet's own setting (1 unless set). */
    const walletRequired = (walletId: string) => Effect.map(row(walletId), (found) => found?.approvals_required ?? 1)

    /** The distinct approvals a transaction of the wallet needs now: the larger of the wallet's and its active policies'. */
    const required = (walletId: string, tenantId: string) =>
      Effect.zipWith(walletRequired(walletId), policies.approvalsRequiredFor(walletId, tenantId), Math.max)

    const answer = (walletId: string, found: QuorumRow | undefined) => ({
      walletId,
      approvalsRequired: found?.approvals_required ?? 1,
      updatedAt: found === undefined ? null : found.updated_at.toISOString(),
      updatedBy: found?.updated_by ?? null
    })

    const mustSee = (caller: CallerInfo, walletId: string) =>
      Effect.flatMap(wallets.find(walletId, caller.readTenant), (wallet) =>
        wallet === undefined ? Effect.fail(new NotFound({ resource: "wallet", id: walletId })) : Effect.succeed(wallet)
      )

    const get = (caller: CallerInfo, walletId: string) =>
      Effect.gen(function* () {
        yield* mustSee(caller, walletId)
        return answer(walletId, yield* row(walletId))
      })

    const set = (caller: CallerInfo, walletId: string, approvalsRequired: number) =>
      Effect.gen(function* () {
        const wallet = yield* mustSee(caller, walletId)
        const current = yield* walletRequired(walletId)
        if (approvalsRequired < current && caller.readTenant !== null) {
          return yield* Effect.fail(new Forbidden({
            message: `approvalsRequired: lowering wallet ${walletId}'s quorum from ${current} to ${approvalsRequired} needs the deployment's operator key (tenant *, without x-tenant-id); any operator may raise it`
          }))
        }
        const [stored] = yield* sql`
          INSERT INTO wallet_approval_quorums (wallet_id, tenant_id, approvals_required, updated_by)
          VALUES (${walletId}, ${wallet.tenantId}, ${approvalsRequired}, ${caller.keyId})
          ON CONFLICT (wallet_id) DO UPDATE SET approvals_required = EXCLUDED.approvals_required, updated_at = now(), updated_by = EXCLUDED.updated_by
          RETURNING approvals_required, updated_at, updated_by
        `.pipe(decodeRows("wallet_approval_quorums", QuorumRow), Effect.orDie)
        return answer(walletId, stored)
      })

    return { required, get, set }
  })
}) {}
