/**
 * How a refused signing fails the transaction: an operator's freeze of its tenant, wallet or agent is a
 * policy refusal naming the freeze (POLICY_VIOLATION at `sign`; docs/decisions/freeze.md), anything else a
 * pipeline error at `sign`.
 */
import type { SignRefused } from "./signer.js"
import { Terminal } from "./stageFailure.js"

export const signingFailure = (refused: SignRefused) =>
  refused.frozen === true
    ? new Terminal({ failedAt: "sign", errorCode: "POLICY_VIOLATION", message: `not signed: ${refused.message}`, stage: "sign" })
    : new Terminal({ failedAt: "sign", errorCode: "PIPELINE_ERROR", message: `signing refused: ${refused.message}`, stage: "sign" })
