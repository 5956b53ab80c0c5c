/**
 * The preview of a transaction at the approval gate, as a person judges it (docs/decisions/approvals.md):
 * what it does in one line, the wallet's simulated balance changes, each instruction in words, who receives
 * value, the fee, the risk tier and the reasons, and how many operators approved. Never the raw JSON.
 */
import type { Approval, ApprovalPreview } from "../types"
import { Badge, time } from "../components"

const sign = (baseUnits: string) => (baseUnits.startsWith("-") ? "out" : "in")

export const BalanceChanges = ({ preview }: { preview: ApprovalPreview }) =>
  preview.balanceChanges.length === 0 ? (
    <p class="muted">no change to the wallet's balances</p>
  ) : (
    <ul class="balance-changes" data-testid="balance-changes">
      {preview.balanceChanges.map((change) => (
        <li key={change.mint ?? "SOL"} class={`change-${sign(change.baseUnits)}`} data-asset={change.symbol}>
          {change.baseUnits.startsWith("-") ? "" : "+"}
          {change.display}
        </li>
      ))}
    </ul>
  )

export const PreviewView = ({ approval, preview }: { approval: Approval; preview: ApprovalPreview }) => (
  <div class="preview" data-testid="preview">
    {approval.changedSinceApproval === undefined ? null : (
      <p class="warning" data-testid="changed">
        Changed: {approval.changedSinceApproval}. Judge the new preview below (round {approval.round ?? 2}).
      </p>
    )}
    <p class="summary" data-testid="summary">
      {preview.summary}
    </p>
    {preview.simulation.ok ? null : <p class="error">the simulation fails: {preview.simulation.error}</p>}
    <h4>The wallet's balances would change by</h4>
    <BalanceChanges preview={preview} />
    {preview.controls.length === 0 ? null : (
      <>
        <h4>It hands over or closes</h4>
        <ul class="controls" data-testid="controls">
          {preview.controls.map((line) => (
            <li key={line} class="error">
              {line}
            </li>
          ))}
        </ul>
      </>
    )}
    <h4>Instructions</h4>
    <ol class="instructions" data-testid="instructions">
      {preview.instructions.map((ix) => (
        <li key={ix.index} data-program={ix.program} data-action={ix.action}>
          <strong>{ix.program}</strong> · {ix.action}: {ix.description}
        </li>
      ))}
    </ol>
    <dl class="facts">
      <dt>receives value</dt>
      <dd data-testid="counterparties">{preview.counterparties.length === 0 ? "nobody outside the wallet" : preview.counterparties.map((c) => <code key={c}>{c} </code>)}</dd>
      <dt>fee</dt>
      <dd data-testid="fee">
        {preview.fee.amount.display} (paid by the {preview.fee.paidBy})
      </dd>
      <dt>risk tier</dt>
      <dd>
        <Badge status={preview.riskTier} />
      </dd>
      <dt>why it waits</dt>
      <dd data-testid="reasons">{preview.reasons.join("; ")}</dd>
      <dt>approvals</dt>
      <dd data-testid="quorum">
        {(approval.approvals ?? []).length} of {approval.approvalsRequired ?? 1}
        {(approval.approvals ?? []).map((entry) => ` · ${entry.by} at ${time(entry.at)}`).join("")}
      </dd>
      <dt>simulated</dt>
      <dd>{new Date(preview.simulatedAt).toLocaleString()}</dd>
    </dl>
  </div>
)
