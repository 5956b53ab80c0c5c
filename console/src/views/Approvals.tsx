/**
 * The approvals inbox: every transaction waiting at the approval gate, across the wallets the key can
 * read, shown as its preview (what it does, the balance changes, who receives value, fee, risk, reasons,
 * the approvals so far; ApprovalPreview.tsx). Approve asks for confirmation and sends the hash of the
 * preview shown, so a preview that changed meanwhile is refused (409) and shown again. Reject with a
 * reason. What was decided here stays in view with what happened to it afterwards: confirmed, failed
 * (with the reason), or back at the gate because its effect changed. Refreshed from the stage stream.
 */
import { useCallback, useEffect, useState } from "preact/hooks"
import { ApiError } from "../api"
import { Badge, ErrorBox, Section, ShortId } from "../components"
import { useSession } from "../session"
import type { Transaction, Wallet } from "../types"
import { useAction } from "../useApi"
import { useStageStream } from "../useStream"
import { PreviewView } from "./ApprovalPreview"

const expiresIn = (iso: string | undefined) => {
  if (iso === undefined) return "no expiry recorded"
  const minutes = Math.floor((new Date(iso).getTime() - Date.now()) / 60_000)
  if (minutes <= 0) return `expired at ${new Date(iso).toLocaleString()}`
  return `expires in ${Math.floor(minutes / 60)} h ${minutes % 60} min (${new Date(iso).toLocaleString()})`
}

/** A decided transaction is answered as a failure envelope that still carries the record. */
const recordOf = (caught: unknown, txId: string): Transaction | undefined =>
  caught instanceof ApiError && (caught.data as Transaction | null)?.id === txId ? (caught.data as Transaction) : undefined

const ApprovalCard = ({ tx, onDecided, onStale }: { tx: Transaction; onDecided: (tx: Transaction, decision: string) => void; onStale: () => void }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [reason, setReason] = useState("")
  /** The hash of the preview on screen when Approve was pressed: what the confirmation approves. */
  const [confirming, setConfirming] = useState<string | undefined>(undefined)
  const preview = tx.approval?.preview
  const shownHash = tx.approval?.previewHash
  const decide = async (decision: "approve" | "reject", body: unknown) => {
    const answer = await run(() => api<Transaction>("POST", `/api/v1/transactions/${tx.id}/${decision}`, body).catch((caught: unknown) => {
      const record = recordOf(caught, tx.id)
      if (record !== undefined) return record
      // 409: the preview changed since it was shown; show the current one (the message stays)
      if (caught instanceof ApiError && caught.httpStatus === 409) onStale()
      throw caught
    }))
    setConfirming(undefined)
    if (answer !== undefined) onDecided(answer, decision === "approve" ? "approved" : "rejected")
  }
  return (
    <article class="card" data-tx={tx.id}>
      <header>
        <a href={`#/transactions/${tx.id}`}>{tx.id.slice(0, 8)}</a> {tx.type} on {tx.protocol} <Badge status={preview?.riskTier ?? tx.policyDecision?.riskTier ?? "unknown"} />
      </header>
      <p class="muted">
        wallet <ShortId id={tx.walletId} /> · agent <ShortId id={tx.agentId} /> · {expiresIn(tx.approval?.expiresAt)}
      </p>
      {tx.approval !== undefined && preview !== undefined ? (
        <PreviewView approval={tx.approval} preview={preview} />
      ) : (
        <p class="error">no preview was recorded for this approval: read the transaction before deciding</p>
      )}
      {confirming !== undefined && preview !== undefined ? (
        <div class="confirm" data-testid="confirm">
          {confirming === shownHash ? null : (
            <p class="warning" data-testid="preview-moved">
              The preview changed while you were confirming: read it again above; this confirmation approves only the one you opened it for.
            </p>
          )}
          <p>
            Approve <strong>{preview.summary}</strong>? It is signed only while its effect stays what this preview shows.
          </p>
          <button onClick={() => void decide("approve", { previewHash: confirming })} disabled={busy} data-action="confirm-approve">
            Confirm approval
          </button>
          <button class="secondary" onClick={() => setConfirming(undefined)} disabled={busy} data-action="cancel">
            Cancel
          </button>
        </div>
      ) : (
        <div class="actions">
          <button onClick={() => setConfirming(shownHash)} disabled={busy || preview === undefined || shownHash === undefined} data-action="approve">
            Approve…
          </button>
          <input name="reason" placeholder="reason for rejecting" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          <button class="danger" onClick={() => void decide("reject", { reason })} disabled={busy || reason.trim() === ""} data-action="reject">
            Reject
          </button>
        </div>
      )}
      <ErrorBox error={error} />
    </article>
  )
}

/** What happened to a transaction decided here: the stream keeps it current. */
const Outcome = ({ tx, decision }: { tx: Transaction; decision: string }) => {
  const outcome =
    tx.status === "confirmed"
      ? `confirmed${tx.signature === undefined ? "" : `, signature ${tx.signature.slice(0, 16)}…`}`
      : tx.status === "failed"
        ? `failed at ${tx.failedAt ?? "?"} (${tx.errorCode ?? "?"}): ${tx.error ?? "no reason recorded"}`
        : tx.status === "approval_gate"
          ? tx.approval?.changedSinceApproval !== undefined
            ? `back at the gate: ${tx.approval.changedSinceApproval}; it needs a new approval`
            : `waiting for more approvals (${(tx.approval?.approvals ?? []).length} of ${tx.approval?.approvalsRequired ?? 1})`
          : `${tx.status}…`
  return (
    <li data-decided={tx.id} data-outcome={tx.status} class={tx.status === "failed" ? "error" : ""}>
      <a href={`#/transactions/${tx.id}`}>{tx.id.slice(0, 8)}</a> {decision}: <Badge status={tx.status} /> <span data-testid="outcome">{outcome}</span>
    </li>
  )
}

export const Approvals = () => {
  const { api } = useSession()
  const [waiting, setWaiting] = useState<ReadonlyArray<Transaction> | undefined>(undefined)
  const [decided, setDecided] = useState<ReadonlyArray<{ tx: Transaction; decision: string }>>([])
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
  const refresh = useCallback(async (txId: string) => {
    const latest = await api<Transaction>("GET", `/api/v1/transactions/${txId}`).catch((caught: unknown) => recordOf(caught, txId))
    if (latest !== undefined) setDecided((list) => list.map((entry) => (entry.tx.id === txId ? { ...entry, tx: latest } : entry)))
  }, [api])
  useEffect(() => void load(), [load])
  useStageStream(
    (event) => {
      if (event.status === "approval_gate" || waiting?.some((tx) => tx.id === event.txId)) void load()
      if (decided.some((entry) => entry.tx.id === event.txId)) void refresh(event.txId)
    },
    {},
    // Events may have been missed: the inbox and the decisions shown are read again.
    () => {
      void load()
      for (const entry of decided) void refresh(entry.tx.id)
    }
  )
  const onDecided = (tx: Transaction, decision: string) => {
    setDecided((list) => [{ tx, decision }, ...list.filter((entry) => entry.tx.id !== tx.id)])
    void load()
    void refresh(tx.id)
  }
  return (
    <>
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
            <ApprovalCard key={tx.id} tx={tx} onDecided={onDecided} onStale={() => void load()} />
          ))}
        </div>
      </Section>
      {decided.length === 0 ? null : (
        <Section title="Decided here, and what happened next">
          <ul class="decided" data-testid="decided">
            {decided.map((entry) => (
              <Outcome key={entry.tx.id} tx={entry.tx} decision={entry.decision} />
            ))}
          </ul>
        </Section>
      )}
    </>
  )
}
