/**
 * One transaction: its stage timeline (live over the stream), the policy decision, the approval, the
 * delta guard, and the execution proof recomputed here from /replay (docs/proof.md) with WebCrypto.
 */
import { useCallback, useEffect, useState } from "preact/hooks"
import { ApiError } from "../api"
import { Badge, ErrorBox, Json, Section, ShortId } from "../components"
import { type ProofCheck, recomputeProof } from "../proof"
import { useSession } from "../session"
import type { Replay, Transaction } from "../types"
import { useStageStream } from "../useStream"
import { DecisionTrace, ShadowVerdicts } from "../riskViews"
import { PreviewView } from "./ApprovalPreview"

/** A failed transaction is answered as a failure envelope that still carries the record. */
const recordOf = (error: unknown, txId: string): Transaction | undefined =>
  error instanceof ApiError && (error.data as Transaction | null)?.id === txId ? (error.data as Transaction) : undefined

const ProofPanel = ({ txId, signature }: { txId: string; signature: string | undefined }) => {
  const { api } = useSession()
  const [checks, setChecks] = useState<ReadonlyArray<ProofCheck> | undefined>(undefined)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  useEffect(() => {
    api<Replay>("GET", `/api/v1/transactions/${txId}/replay`)
      .then(recomputeProof)
      .then(setChecks, (caught: unknown) => setError(caught instanceof ApiError ? caught : new ApiError(0, String(caught), null, null)))
  }, [txId, signature])
  if (error !== undefined) return <ErrorBox error={error} />
  if (checks === undefined) return <p class="muted">recomputing…</p>
  if (checks.length === 0) return <p class="muted">no proof yet (the transaction has not reached a terminal state)</p>
  const verified = checks.every((check) => check.stored === check.computed)
  return (
    <div data-testid="proof" data-verified={String(verified)}>
      <p class={verified ? "ok" : "error"}>{verified ? "proof verified in this browser: every hash matches" : "proof MISMATCH: a stored hash differs from the recomputed one"}</p>
      <table>
        <tbody>
          {checks.map((check) => (
            <tr key={check.field}>
              <th>{check.field}</th>
              <td>
                <code>{check.computed}</code>
              </td>
              <td>{check.stored === check.computed ? "✓" : <span class="error">stored {check.stored}</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export const TransactionDetail = ({ txId }: { txId: string }) => {
  const { api } = useSession()
  const [tx, setTx] = useState<Transaction | undefined>(undefined)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const load = useCallback(async () => {
    try {
      setTx(await api<Transaction>("GET", `/api/v1/transactions/${txId}`))
      setError(undefined)
    } catch (caught) {
      const record = recordOf(caught, txId)
      if (record !== undefined) setTx(record)
      else setError(caught instanceof ApiError ? caught : new ApiError(0, String(caught), null, null))
    }
  }, [api, txId])
  useEffect(() => void load(), [load])
  // Any event of it, or a gap in the stream (a reconnect included): read it again.
  useStageStream(() => void load(), { txId }, () => void load())

  if (tx === undefined) return error === undefined ? <p class="muted">loading…</p> : <ErrorBox error={error} />
  const terminal = tx.status === "confirmed" || tx.status === "failed"
  return (
    <>
      <p>
        <a href="#/transactions">← transactions</a>
      </p>
      <Section title={`Transaction ${tx.id}`} actions={<Badge status={tx.status} />}>
        <dl class="facts">
          <dt>type</dt>
          <dd>
            {tx.type} on {tx.protocol}
          </dd>
          <dt>wallet</dt>
          <dd>
            <ShortId id={tx.walletId} />
          </dd>
          <dt>agent</dt>
          <dd>
            <ShortId id={tx.agentId} />
          </dd>
          <dt>signature</dt>
          <dd>{tx.signature === undefined ? "-" : <code>{tx.signature}</code>}</dd>
          {tx.error === undefined ? null : (
            <>
              <dt>error</dt>
              <dd class="error">
                {tx.errorCode} at {tx.failedAt}: {tx.error}
              </dd>
            </>
          )}
        </dl>
        <h3>Intent</h3>
        <Json value={tx.intent} />
      </Section>
      <Section title="Stage timeline">
        <ol class="timeline" data-testid="timeline">
          {tx.history.map((entry, index) => (
            <li key={index} data-status={entry.status}>
              <Badge status={entry.status} /> <time>{new Date(entry.at).toLocaleTimeString()}</time>
              {entry.message === undefined ? null : <span class="muted"> {entry.message}</span>}
            </li>
          ))}
        </ol>
      </Section>
      <Section title="Policy decision">
        {tx.policyDecision === undefined ? (
          <p class="muted">not evaluated</p>
        ) : (
          <div data-testid="policy-decision">
            <Badge status={tx.policyDecision.decision} /> risk tier {tx.policyDecision.riskTier}
            <ul>
              {tx.policyDecision.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
            <ShadowVerdicts shadow={tx.policyDecision.shadow} />
            <DecisionTrace trace={tx.policyDecision.trace} />
          </div>
        )}
        {tx.approval === undefined ? null : (
          <>
            <p data-testid="approval-status">
              approval {tx.approval.status}
              {tx.approval.reason === undefined ? "" : `: ${tx.approval.reason}`}
              {tx.approval.decidedBy === undefined ? "" : ` (by ${tx.approval.decidedBy})`}
            </p>
            {tx.approval.preview === undefined ? null : <PreviewView approval={tx.approval} preview={tx.approval.preview} />}
          </>
        )}
      </Section>
      <Section title="Delta guard">
        {tx.deltaGuard === undefined ? (
          <p class="muted">no check (yet)</p>
        ) : (
          <dl class="facts" data-testid="delta-guard">
            <dt>result</dt>
            <dd class={tx.deltaGuard.ok ? "ok" : "error"}>{tx.deltaGuard.ok ? "ok" : "breach"}</dd>
            <dt>expected Δ lamports</dt>
            <dd>{tx.deltaGuard.expectedLamportsDelta ?? "-"}</dd>
            <dt>observed Δ lamports</dt>
            <dd>{tx.deltaGuard.observedLamportsDelta ?? "-"}</dd>
            <dt>variance bps</dt>
            <dd>{tx.deltaGuard.varianceBps ?? "-"}</dd>
            {tx.deltaGuard.reason === undefined ? null : (
              <>
                <dt>reason</dt>
                <dd>{tx.deltaGuard.reason}</dd>
              </>
            )}
          </dl>
        )}
      </Section>
      <Section title="Execution proof">{terminal ? <ProofPanel txId={tx.id} signature={tx.signature} /> : <p class="muted">the proof is stored when the transaction settles</p>}</Section>
    </>
  )
}
