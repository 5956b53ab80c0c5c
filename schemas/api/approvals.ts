/** Approval settings (issue 31): a wallet's approval quorum. The approvals themselves are transaction routes. */
import { WalletApprovalQuorum, WalletApprovalQuorumBody } from "../approval.js"
import { endpoint } from "./endpoint.js"
import { WalletIdParams } from "./wallets.js"

export const ApprovalsApi = {
  getQuorum: endpoint("approvals", "GET", "/api/v1/wallets/:walletId/approval-quorum", {
    summary: "How many distinct operators must approve each of the wallet's transactions at the gate (1 unless set)",
    params: WalletIdParams,
    success: WalletApprovalQuorum
  }),
  putQuorum: endpoint("approvals", "PUT", "/api/v1/wallets/:walletId/approval-quorum", {
    summary: "Set the wallet's approval quorum (1-10); lowering it needs the deployment's operator key",
    params: WalletIdParams,
    body: WalletApprovalQuorumBody,
    success: WalletApprovalQuorum
  })
}
