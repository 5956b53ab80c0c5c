/** Audit events with the spec's filters (txId, agentId, walletId, protocol, escrowId, entityType, category, limit). */
import { useState } from "preact/hooks"
import { query } from "../api"
import { Gate, Section, ShortId } from "../components"
import { useApi } from "../useApi"

interface AuditEvent {
  readonly id: string
  readonly eventType: string
  readonly message: string
  readonly metadata: Record<string, unknown>
  readonly txId?: string
  readonly walletId?: string
  readonly agentId?: string
  readonly category?: string
  readonly createdAt: string
}

const FILTERS = ["txId", "agentId", "walletId", "protocol", "escrowId", "entityType", "category"] as const
type Filters = Record<(typeof FILTERS)[number] | "limit", string>

export const Audit = () => {
  const empty: Filters = { txId: "", agentId: "", walletId: "", protocol: "", escrowId: "", entityType: "", category: "", limit: "50" }
  const [draft, setDraft] = useState<Filters>(empty)
  const [applied, setApplied] = useState<Filters>(empty)
  const events = useApi<{ events: ReadonlyArray<AuditEvent>; total: number }>(`/api/v1/audit/events${query({ ...applied })}`)
  return (
    <Section title={`Audit events${events.data === undefined ? "" : ` (${events.data.total})`}`}>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          setApplied({ ...draft })
        }}
      >
        {[...FILTERS, "limit" as const].map((name) => (
          <input key={name} name={name} placeholder={name} value={draft[name]} onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
        ))}
        <button type="submit">Filter</button>
      </form>
      <Gate scope="audit" error={events.error}>
        {/* data-answers names the query the rows shown answer, so a reader can tell a filtered list from the one before. */}
        <table data-testid="audit-events" data-answers={events.loadedPath}>
          <thead>
            <tr>
              <th>at</th>
              <th>event</th>
              <th>message</th>
              <th>tx</th>
              <th>wallet</th>
              <th>agent</th>
              <th>category</th>
            </tr>
          </thead>
          <tbody>
            {(events.data?.events ?? []).map((event) => (
              <tr key={event.id} data-tx={event.txId ?? ""}>
                <td class="nowrap">{new Date(event.createdAt).toLocaleTimeString()}</td>
                <td>
                  <code>{event.eventType}</code>
                </td>
                <td>{event.message}</td>
                <td>{event.txId === undefined ? "-" : <a href={`#/transactions/${event.txId}`}>{event.txId.slice(0, 8)}</a>}</td>
                <td>
                  <ShortId id={event.walletId} />
                </td>
                <td>
                  <ShortId id={event.agentId} />
                </td>
                <td>{event.category ?? "-"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Gate>
    </Section>
  )
}
