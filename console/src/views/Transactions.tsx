/**
 * Transactions, live: the recent transactions of every wallet the key can read, then each stage
 * transition as the stage stream announces it. Filters by wallet, agent and status; a row opens the
 * detail. A small form starts a SOL transfer (POST /api/v1/transactions).
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { ApiError, query } from "../api"
import { Badge, ErrorBox, Section, ShortId, time } from "../components"
import { useSession } from "../session"
import type { StageEvent, Transaction, Wallet } from "../types"
import { useAction, useApi } from "../useApi"
import { useStageStream } from "../useStream"

export const STATUSES = ["pending", "simulating", "policy_eval", "approval_gate", "signing", "submitting", "confirmed", "failed"]

interface Row {
  readonly txId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly type?: string
  readonly status: string
  readonly stages: ReadonlyArray<string>
  readonly at: string
  readonly message?: string
}

const rowOf = (tx: Transaction): Row => ({
  txId: tx.id,
  walletId: tx.walletId,
  agentId: tx.agentId ?? null,
  type: tx.type,
  status: tx.status,
  stages: tx.history.map((entry) => entry.status),
  at: tx.history.at(-1)?.at ?? tx.createdAt,
  ...(tx.error === undefined ? {} : { message: tx.error })
})

/** Stages of `first` then those of `second` it lacks (a record's history and what the stream added). */
const mergeStages = (first: ReadonlyArray<string>, second: ReadonlyArray<string>) => [...first, ...second.filter((stage) => !first.includes(stage))]

const withEvent = (row: Row | undefined, event: StageEvent): Row => ({
  txId: event.txId,
  walletId: event.walletId,
  agentId: event.agentId,
  type: row?.type,
  status: event.status,
  stages: row === undefined ? [event.status] : row.stages.at(-1) === event.status ? row.stages : [...row.stages, event.status],
  at: event.at,
  ...(event.message === undefined ? {} : { message: event.message })
})

/** The record's view of a row the stream knows too: its history first, the stream's latest state. */
const withRecord = (row: Row | undefined, tx: Transaction): Row => {
  const fromRecord = rowOf(tx)
  if (row === undefined) return fromRecord
  const newer = row.at > fromRecord.at ? row : fromRecord
  return { ...newer, type: tx.type, stages: mergeStages(fromRecord.stages, row.stages) }
}

const TransferForm = ({ wallets }: { wallets: ReadonlyArray<Wallet> }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [walletId, setWalletId] = useState("")
  const [destination, setDestination] = useState("")
  const [lamports, setLamports] = useState("1000000")
  const [started, setStarted] = useState<string | undefined>(undefined)
  const submit = async (event: Event) => {
    event.preventDefault()
    const tx = await run(() =>
      api<Transaction>("POST", "/api/v1/transactions", {
        walletId: walletId || wallets[0]?.id,
        type: "transfer_sol",
        protocol: "system-program",
        intent: { destination: destination.trim(), lamports: Number(lamports) }
      })
    )
    if (tx !== undefined) setStarted(tx.id)
  }
  return (
    <form class="inline-form" onSubmit={submit} data-testid="transfer-form">
      <select name="walletId" value={walletId} onChange={(e) => setWalletId(e.currentTarget.value)}>
        {wallets.map((wallet) => (
          <option key={wallet.id} value={wallet.id}>
            {wallet.label ?? wallet.id.slice(0, 8)}
          </option>
        ))}
      </select>
      <input name="destination" placeholder="destination (base58)" value={destination} onInput={(e) => setDestination(e.currentTarget.value)} required />
      <input name="lamports" type="number" min="1" value={lamports} onInput={(e) => setLamports(e.currentTarget.value)} required />
      <button type="submit" disabled={busy || wallets.length === 0}>
        Send SOL
      </button>
      {started === undefined ? null : (
        <span class="muted">
          started <a href={`#/transactions/${started}`}>{started.slice(0, 8)}</a>
        </span>
      )}
      <ErrorBox error={error} />
    </form>
  )
}

export const Transactions = () => {
  const { api } = useSession()
  const wallets = useApi<{ wallets: ReadonlyArray<Wallet> }>("/api/v1/wallets?limit=100")
  const [rows, setRows] = useState<ReadonlyMap<string, Row>>(new Map())
  const [filters, setFilters] = useState({ walletId: "", agentId: "", status: "" })

  // The recent transactions of each wallet, merged under whatever the stream already delivered.
  const loadRecent = () => {
    const list = wallets.data?.wallets ?? []
    void Promise.all(
      list.map((wallet) =>
        api<{ transactions: ReadonlyArray<Transaction> }>("GET", `/api/v1/wallets/${wallet.id}/transactions${query({ limit: 25 })}`).catch(() => ({ transactions: [] }))
      )
    ).then((pages) =>
      setRows((current) => {
        const next = new Map(current)
        for (const tx of pages.flatMap((page) => page.transactions)) next.set(tx.id, withRecord(next.get(tx.id), tx))
        return next
      })
    )
  }
  useEffect(loadRecent, [wallets.data])

  // A transaction first seen on the stream: its record fills in the type and any stage before we connected.
  const fetchRecord = (txId: string) =>
    api<Transaction>("GET", `/api/v1/transactions/${txId}`)
      .catch((error: unknown) => (error instanceof ApiError && (error.data as Transaction | null)?.id === txId ? (error.data as Transaction) : undefined))
      .then((tx) => tx && setRows((current) => new Map(current).set(txId, withRecord(current.get(txId), tx))))

  const stream = useStageStream(
    (event) =>
      setRows((current) => {
        if (!current.has(event.txId)) void fetchRecord(event.txId)
        return new Map(current).set(event.txId, withEvent(current.get(event.txId), event))
      }),
    {},
    // Events may have been missed: each wallet's recent transactions are read again.
    loadRecent
  )

  const shown = useMemo(
    () =>
      [...rows.values()]
        .filter((row) => filters.walletId === "" || row.walletId === filters.walletId)
        .filter((row) => filters.agentId === "" || (row.agentId ?? "").startsWith(filters.agentId.trim()))
        .filter((row) => filters.status === "" || row.status === filters.status)
        .sort((a, b) => b.at.localeCompare(a.at))
        .slice(0, 200),
    [rows, filters]
  )
  const agents = [...new Set([...rows.values()].map((row) => row.agentId).filter((id): id is string => id !== null))]

  return (
    <>
      <Section title="New transfer">
        <ErrorBox error={wallets.error} />
        <TransferForm wallets={wallets.data?.wallets ?? []} />
      </Section>
      <Section title="Transactions" actions={<span class={`stream stream-${stream}`} data-testid="stream-state">stream {stream}</span>}>
        <div class="filters">
          <select name="walletFilter" value={filters.walletId} onChange={(e) => setFilters({ ...filters, walletId: e.currentTarget.value })}>
            <option value="">all wallets</option>
            {(wallets.data?.wallets ?? []).map((wallet) => (
              <option key={wallet.id} value={wallet.id}>
                {wallet.label ?? wallet.id.slice(0, 8)}
              </option>
            ))}
          </select>
          <select name="agentFilter" value={filters.agentId} onChange={(e) => setFilters({ ...filters, agentId: e.currentTarget.value })}>
            <option value="">all agents</option>
            {agents.map((id) => (
              <option key={id} value={id}>
                {id.slice(0, 8)}
              </option>
            ))}
          </select>
          <select name="statusFilter" value={filters.status} onChange={(e) => setFilters({ ...filters, status: e.currentTarget.value })}>
            <option value="">all statuses</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <table data-testid="transactions">
          <thead>
            <tr>
              <th>transaction</th>
              <th>wallet</th>
              <th>agent</th>
              <th>type</th>
              <th>status</th>
              <th>stages</th>
              <th>at</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr key={row.txId} data-tx={row.txId} data-status={row.status}>
                <td>
                  <a href={`#/transactions/${row.txId}`}>{row.txId.slice(0, 8)}</a>
                </td>
                <td>
                  <ShortId id={row.walletId} />
                </td>
                <td>
                  <ShortId id={row.agentId} />
                </td>
                <td>{row.type ?? "-"}</td>
                <td>
                  <Badge status={row.status} />
                </td>
                <td class="stages" data-stages={row.stages.join(",")}>
                  {row.stages.map((stage, index) => (
                    <span key={index} class={`stage stage-${stage}`}>
                      {stage}
                    </span>
                  ))}
                </td>
                <td>{time(row.at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 ? <p class="muted">no transactions yet</p> : null}
      </Section>
    </>
  )
}
