/** A wallet's approval quorum over HTTP (issue 31; scope `wallets`, operator keys). */
import { Effect } from "effect"
import { WalletApprovalQuorumBody } from "../../../schemas/approval.js"
import { ApprovalsApi } from "../../../schemas/api/approvals.js"
import { Uuid } from "../../../schemas/common.js"
import { Caller } from "../../gateway/caller.js"
import { ok } from "../../gateway/envelope.js"
import { decodeBody, pathParam } from "../../gateway/request.js"
import { route } from "../../gateway/route.js"
import { WalletQuorums } from "./walletQuorums.js"

const walletId = pathParam("walletId", Uuid)

export const approvalRoutes = [
  route(
    ApprovalsApi.getQuorum,
    Effect.gen(function* () {
      const id = yield* walletId
      return ok(yield* (yield* WalletQuorums).get(yield* Caller, id))
    })
  ),
  route(
    ApprovalsApi.putQuorum,
    Effect.gen(function* () {
      const id = yield* walletId
      const body = yield* decodeBody(WalletApprovalQuorumBody)
      return ok(yield* (yield* WalletQuorums).set(yield* Caller, id, body.approvalsRequired))
    })
  )
]
