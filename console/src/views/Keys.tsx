/**
 * API keys (issue 36): the keys the operator's tenant sees (never their secrets), issue a key (its secret
 * shown once, here), rotate with a grace period, revoke. Scope `keys`.
 */
import { useState } from "preact/hooks"
import { Badge, ErrorBox, Gate, Section, ShortId, time } from "../components"
import { useSession } from "../session"
import type { ApiKey } from "../types"
import { useAction, useApi } from "../useApi"

const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "")

/** The secret of a key just issued or rotated: shown until the operator dismisses it, never again. */
const NewSecret = ({ secret, onDismiss }: { secret: string; onDismiss: () => void }) => (
  <div class="notice" role="status" data-testid="new-secret">
    <p>Copy this key now: it is stored only as a hash and cannot be shown again.</p>
    <code data-testid="secret">{secret}</code>
    <button onClick={onDismiss}>Done</button>
  </div>
)

const IssueForm = ({ onIssued }: { onIssued: (secret: string) => void }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [tenant, setTenant] = useState("")
  const [scopes, setScopes] = useState("wallets,transactions")
  const [agentId, setAgentId] = useState("")
  const [expiresAt, setExpiresAt] = useState("")
  const [label, setLabel] = useState("")
  const issue = async (event: Event) => {
    event.preventDefault()
    const body = {
      scopes: list(scopes),
      ...(tenant.trim() === "" ? {} : { tenant: tenant.trim() }),
      ...(agentId.trim() === "" ? {} : { agentId: agentId.trim() }),
      ...(expiresAt === "" ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
      ...(label.trim() === "" ? {} : { label: label.trim() })
    }
    const issued = await run(() => api<ApiKey & { secret: string }>("POST", "/api/v1/keys", body))
    if (issued !== undefined) onIssued(issued.secret)
  }
  return (
    <form class="inline-form" onSubmit={issue} data-testid="issue-key">
      <input name="tenant" placeholder="tenant (default: yours)" value={tenant} onInput={(e) => setTenant(e.currentTarget.value)} />
      <input name="scopes" value={scopes} onInput={(e) => setScopes(e.currentTarget.value)} title="scopes, comma separated" />
      <input name="agentId" placeholder="agent id (optional)" value={agentId} onInput={(e) => setAgentId(e.currentTarget.value)} />
      <input name="expiresAt" type="datetime-local" value={expiresAt} onInput={(e) => setExpiresAt(e.currentTarget.value)} title="expires (optional)" />
      <input name="label" placeholder="label" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
      <button type="submit" disabled={busy}>
        Issue key
      </button>
      <ErrorBox error={error} />
    </form>
  )
}

const KeyRow = ({ apiKey, onChanged, onRotated }: { apiKey: ApiKey; onChanged: () => void; onRotated: (secret: string) => void }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [grace, setGrace] = useState("3600")
  const revoke = async () => {
    await run(() => api("POST", `/api/v1/keys/${apiKey.id}/revoke`, {}))
    onChanged()
  }
  const rotate = async () => {
    const rotated = await run(() => api<{ key: ApiKey & { secret: string } }>("POST", `/api/v1/keys/${apiKey.id}/rotate`, { graceSeconds: Number(grace) }))
    if (rotated !== undefined) onRotated(rotated.key.secret)
    onChanged()
  }
  const active = apiKey.status === "active"
  return (
    <tr data-key={apiKey.id} data-status={apiKey.status}>
      <td>
        <code>{apiKey.prefix}</code>
      </td>
      <td>{apiKey.label ?? "-"}</td>
      <td>{apiKey.tenantId}</td>
      <td>{apiKey.scopes.join(", ")}</td>
      <td>
        <ShortId id={apiKey.agentId} />
      </td>
      <td>
        <Badge status={apiKey.status} />
      </td>
      <td>{apiKey.expiresAt === null ? "never" : new Date(apiKey.expiresAt).toLocaleString()}</td>
      <td>{time(apiKey.lastUsedAt)}</td>
      <td>
        {active && apiKey.replacedBy === null ? (
          <>
            <input name="graceSeconds" type="number" min="0" value={grace} onInput={(e) => setGrace(e.currentTarget.value)} title="grace seconds for the old key" />
            <button onClick={() => void rotate()} disabled={busy} data-action="rotate">
              Rotate
            </button>
          </>
        ) : null}
        {apiKey.status === "revoked" ? null : (
          <button class="danger" onClick={() => void revoke()} disabled={busy} data-action="revoke">
            Revoke
          </button>
        )}
        <ErrorBox error={error} />
      </td>
    </tr>
  )
}

export const Keys = () => {
  const keys = useApi<{ keys: ReadonlyArray<ApiKey>; total: number }>("/api/v1/keys?limit=100")
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const shown = (value: string) => {
    setSecret(value)
    void keys.reload()
  }
  return (
    <Section title={`API keys${keys.data === undefined ? "" : ` (${keys.data.total})`}`}>
      <Gate scope="keys" error={keys.error}>
        {secret === undefined ? null : <NewSecret secret={secret} onDismiss={() => setSecret(undefined)} />}
        <IssueForm onIssued={shown} />
        <table data-testid="keys">
          <thead>
            <tr>
              <th>key</th>
              <th>label</th>
              <th>tenant</th>
              <th>scopes</th>
              <th>agent</th>
              <th>status</th>
              <th>expires</th>
              <th>last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(keys.data?.keys ?? []).map((apiKey) => (
              <KeyRow key={apiKey.id} apiKey={apiKey} onChanged={() => void keys.reload()} onRotated={shown} />
            ))}
          </tbody>
        </table>
      </Gate>
    </Section>
  )
}
