/**
 * Issue 34 in the console: a decision's trace and its shadow verdicts (transaction detail), a policy backtest
 * form with its result, and a wallet's shadow policies' disagreements with the enforced decisions.
 */
import { useState } from "preact/hooks"
import { Badge, ErrorBox, ShortId, time } from "./components"
import { useSession } from "./session"
import type { ShadowVerdict, TraceEntry } from "./types"
import { useAction, useApi } from "./useApi"

const text = (value: Record<string, unknown>) => (Object.keys(value).length === 0 ? "-" : JSON.stringify(value))

/** Every check of a decision: what it saw, its limit, its verdict. */
export const DecisionTrace = ({ trace }: { trace: ReadonlyArray<TraceEntry> | undefined }) =>
  trace === undefined || trace.length === 0 ? null : (
    <table data-testid="decision-trace">
      <thead>
        <tr>
          <th>check</th>
          <th>observed</th>
          <th>limit</th>
          <th>verdict</th>
        </tr>
      </thead>
      <tbody>
        {trace.map((entry, index) => (
          <tr key={index} data-verdict={entry.verdict}>
            <td>{entry.source}</td>
            <td>
              <code>{text(entry.observed)}</code>
            </td>
            <td>
              <code>{text(entry.limit)}</code>
            </td>
            <td>
              <Badge status={entry.verdict} /> {entry.reasons.join("; ")}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )

/** What the wallet's shadow policies would have decided, beside the enforced decision. */
export const ShadowVerdicts = ({ shadow }: { shadow: ReadonlyArray<ShadowVerdict> | undefined }) =>
  shadow === undefined || shadow.length === 0 ? null : (
    <div data-testid="shadow-verdicts">
      <h3>Shadow policies (not enforced)</h3>
      <ul>
        {shadow.map((verdict) => (
          <li key={verdict.policyId} data-agrees={String(verdict.agrees)}>
            {verdict.name} v{verdict.version}: <Badge status={verdict.decision} /> {verdict.agrees ? "agrees" : "disagrees"}
            {verdict.reasons.length === 0 ? "" : ` (${verdict.reasons.join("; ")})`}
          </li>
        ))}
      </ul>
    </div>
  )

interface BacktestResult {
  readonly summary: { total: number; wouldAllow: number; wouldDeny: number; wouldAskApproval: number; changed: number; valueBlockedLamports: number }
  readonly transactions: ReadonlyArray<{ txId: string; createdAt: string; type: string; amountLamports: number; recordedDecision: string | null; decision: string; reasons: ReadonlyArray<string>; changed: boolean }>
}

/** A stored policy (at a version) replayed over the wallet's recorded transactions of the last N days. */
export const Backtest = ({ walletId, policies }: { walletId: string; policies: ReadonlyArray<{ id: string; name: string; version: number }> }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [policyId, setPolicyId] = useState("")
  const [version, setVersion] = useState("")
  const [days, setDays] = useState("7")
  const [result, setResult] = useState<BacktestResult | undefined>(undefined)
  const chosen = policyId === "" ? policies[0]?.id : policyId
  const submit = async (event: Event) => {
    event.preventDefault()
    const body = { walletId, days: Number(days), policyId: chosen, ...(version.trim() === "" ? {} : { version: Number(version) }) }
    const answered = await run(() => api<BacktestResult>("POST", "/api/v1/policies/backtest", body))
    if (answered !== undefined) setResult(answered)
  }
  return (
    <form class="inline-form" data-testid="backtest-form" onSubmit={submit}>
      <select name="backtestPolicy" value={chosen} onChange={(e) => setPolicyId(e.currentTarget.value)}>
        {policies.map((policy) => (
          <option key={policy.id} value={policy.id}>
            {policy.name} (v{policy.version})
          </option>
        ))}
      </select>
      <input name="backtestVersion" placeholder="version (current)" value={version} onInput={(e) => setVersion(e.currentTarget.value)} />
      <input name="backtestDays" type="number" min="1" max="90" value={days} onInput={(e) => setDays(e.currentTarget.value)} title="days" />
      <button type="submit" disabled={busy || chosen === undefined}>
        Backtest
      </button>
      <ErrorBox error={error} />
      {result === undefined ? null : (
        <div data-testid="backtest-result">
          <p data-testid="backtest-summary">
            {result.summary.total} transactions: {result.summary.wouldAllow} allowed, {result.summary.wouldDeny} denied, {result.summary.wouldAskApproval} to approval;{" "}
            {result.summary.changed} changed; {result.summary.valueBlockedLamports} lamports blocked
          </p>
          <table>
            <thead>
              <tr>
                <th>transaction</th>
                <th>at</th>
                <th>lamports</th>
                <th>recorded</th>
                <th>would be</th>
              </tr>
            </thead>
            <tbody>
              {result.transactions.map((tx) => (
                <tr key={tx.txId} data-changed={String(tx.changed)}>
                  <td>
                    <ShortId id={tx.txId} />
                  </td>
                  <td>{time(tx.createdAt)}</td>
                  <td class="number">{tx.amountLamports}</td>
                  <td>{tx.recordedDecision === null ? "-" : <Badge status={tx.recordedDecision} />}</td>
                  <td>
                    <Badge status={tx.decision} /> {tx.reasons.join("; ")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </form>
  )
}

interface AuditEvent {
  readonly id: string
  readonly txId?: string | null
  readonly createdAt: string
  readonly metadata?: { decision?: string; shadow?: ReadonlyArray<ShadowVerdict> } | null
}

/** The wallet's recent decisions where a shadow policy disagreed with the enforced one (refreshed: decisions keep coming). */
export const ShadowDisagreements = ({ walletId }: { walletId: string }) => {
  const events = useApi<{ events: ReadonlyArray<AuditEvent> }>(`/api/v1/audit/events?eventType=policy.evaluated&walletId=${walletId}&limit=200`, { pollMs: 3000 })
  const disagreements = (events.data?.events ?? []).flatMap((event) =>
    (event.metadata?.shadow ?? []).filter((verdict) => !verdict.agrees).map((verdict) => ({ event, verdict }))
  )
  return (
    <div data-testid="shadow-disagreements">
      <ErrorBox error={events.error} />
      {disagreements.length === 0 ? (
        <p class="muted">no disagreement recorded</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>transaction</th>
              <th>at</th>
              <th>enforced</th>
              <th>shadow policy</th>
              <th>would have</th>
            </tr>
          </thead>
          <tbody>
            {disagreements.map(({ event, verdict }) => (
              <tr key={`${event.id}-${verdict.policyId}`} data-disagreement={event.txId ?? ""}>
                <td>
                  <ShortId id={event.txId} />
                </td>
                <td>{time(event.createdAt)}</td>
                <td>
                  <Badge status={event.metadata?.decision ?? "-"} />
                </td>
                <td>
                  {verdict.name} v{verdict.version}
                </td>
                <td>
                  <Badge status={verdict.decision} /> {verdict.reasons.join("; ")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
