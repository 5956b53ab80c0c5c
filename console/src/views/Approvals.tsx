/**
 * The approvals inbox: every transaction waiting at the approval gate, across the wallets the key can
 * read, with the policy's reasons and the approval's expiry. Approve, or reject with a reason.
 * Refreshed whenever the stage stream reports a transaction entering or leaving the gate.
 */
import { useCallback, useEffect, useState } from "preact/hooks"
import { ApiError } from "../api"
import { Badge, ErrorBox, Json, Section, ShortId } from "../components"
import { useSession } from "../session"
import type { Transaction, Wallet } from "../types"
import { useAction } from "../useApi"
import { useStageStream } from "../useStream"

const expiresIn = (iso: string | undefined) => {
  if (iso === undefined) return "no expiry recorded"
  const minutes = Math.floor((new Date(iso).getTime() - Date.now()) / 60_000)
  if (minutes <= 0) return `expired at ${new Date(iso).toLocaleString()}`
  return `expires in ${Math.floor(minutes / 60)} h ${minutes % 60} min (${new Date(iso).toLocaleString()})`
}

const ApprovalCard = ({ tx, onDone }: { tx: Transaction; onDone: () => void }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [reason, setReason] = useState("")
  const act = async (path: string, body?: unknown) => {
    // A decided transaction is answered as a failure envelope when the decision was a rejection.
    await run(() => api("POST", path, body).catch((caught: unknown) => {
      if (caught instanceof ApiError && (caught.data as Transaction | null)?.id === tx.id) return caught.data
      throw caught
    }))
    onDone()
  }
  return (
    <article class="card" data-tx={tx.id}>
      <header>
        <a href={`#/transactions/${tx.id}`}>{tx.id.slice(0, 8)}</a> {tx.type} on {tx.protocol} <Badge status={tx.policyDecision?.riskTier ?? "unknown"} />
      </header>
      <p class="muted">
        wallet <ShortId id={tx.walletId} /> · agent <ShortId id={tx.agentId} /> · {expiresIn(tx.approval?.expiresAt)}
      </p>
      <ul class="reasons" data-testid="reasons">
        {(tx.policyDecision?.reasons ?? []).map((text) => (
          <li key={text}>{text}</li>
        ))}
      </ul>
      <Json value={tx.intent} />
      <div class="actions">
        <button onClick={() => void act(`/api/v1/transactions/${tx.id}/approve`)} disabled={busy} data-action="approve">
          Approve
        </button>
        <input name="reason" placeholder="reason for rejecting" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <button class="danger" onClick={() => void act(`/api/v1/transactions/${tx.id}/reject`, { reason })} disabled={busy || reason.trim() === ""} data-action="reject">
          Reject
        </button>
      </div>
      <ErrorBox error={error} />
    </article>
  )
}

export const Approvals = () => {
  const { api } = useSession()
  const [waiting, setWaiting] = useState<ReadonlyArray<Transaction> | undefined>(undefined)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const load = useCallback(async () => {
    try {
      const { wallets } = await api<{ wallets: ReadonlyArray<Wallet> }>("GET", "/api/v1/wallets?limit=100")
      const pages = await Promise.all(
        wallets.map((wallet) => api<{ transactions: ReadonlyArray<Transaction> }>("GET", `/api/v1/wallets/${wallet.id}/pending-approvals?limit=100`))
      )
      setWaiting(pages.flatMap((page) => page.transactions).sort((a, b) => a.createdAt.localeCompare(b.createdAt)))
      setError(undefined)
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, String(caught), null, null))
    }
  }, [api])
  useEffect(() => void load(), [load])
  useStageStream((event) => {
    if (event.status === "approval_gate" || waiting?.some((tx) => tx.id === event.txId)) void load()
  })
  return (
    <Section title={`Approvals inbox${waiting === undefined ? "" : ` (${waiting.length})`}`}>
      {error?.isMissingScope === true ? (
        <div class="disabled" data-testid="needs-scope">
          <strong>needs scope wallets</strong>
          <span>{error.message}</span>
        </div>
      ) : (
        <ErrorBox error={error} />
      )}
      {waiting?.length === 0 ? <p class="muted">nothing waits at the approval gate</p> : null}
      <div class="cards" data-testid="approvals">
        {(waiting ?? []).map((tx) => (
          <ApprovalCard key={tx.id} tx={tx} onDone={() => void load()} />
        ))}
      </div>
    </Section>
  )
}
