/**
 * The kill switch in the console (issue 34 item 3): the active freezes the key may see (polled), a banner on
 * every view while a tenant is frozen, a frozen badge on the wallets and agents a freeze covers, and one
 * Freeze button per tenant, wallet and agent that asks for a reason and a confirmation before it acts.
 */
import { createContext, type ComponentChildren } from "preact"
import { useContext, useState } from "preact/hooks"
import { ErrorBox, time } from "./components"
import { useSession } from "./session"
import { useAction, useApi } from "./useApi"

export interface FreezeInfo {
  readonly id: string
  readonly tenantId: string
  readonly scope: "tenant" | "wallet" | "agent"
  readonly targetId: string
  readonly reason: string
  readonly frozenAt: string
  readonly active: boolean
}

interface Freezes {
  readonly list: ReadonlyArray<FreezeInfo>
  readonly reload: () => Promise<void>
}

const FreezesContext = createContext<Freezes>({ list: [], reload: async () => undefined })

/** Loads the active freezes once for every view (a key without the risk scope sees none). */
export const FreezesProvider = ({ children }: { children: ComponentChildren }) => {
  const loaded = useApi<{ freezes: ReadonlyArray<FreezeInfo> }>("/api/v1/risk/freezes?limit=100", { pollMs: 2000 })
  return <FreezesContext.Provider value={{ list: loaded.data?.freezes ?? [], reload: loaded.reload }}>{children}</FreezesContext.Provider>
}

export const useFreezes = () => useContext(FreezesContext)

/** The active freeze of exactly this scope, if any. */
export const freezeOf = (freezes: ReadonlyArray<FreezeInfo>, scope: FreezeInfo["scope"], targetId: string) =>
  freezes.find((freeze) => freeze.scope === scope && freeze.targetId === targetId)

/** On every view while a tenant is frozen: which, since when, why. */
export const FreezeBanner = () => {
  const tenants = useFreezes().list.filter((freeze) => freeze.scope === "tenant")
  return tenants.length === 0 ? null : (
    <div class="frozen-banner" role="status" data-testid="frozen-banner">
      {tenants.map((freeze) => (
        <div key={freeze.id}>
          Tenant <strong>{freeze.targetId}</strong> is frozen since {time(freeze.frozenAt)}: {freeze.reason}. Nothing of it is signed.
        </div>
      ))}
    </div>
  )
}

export const FrozenBadge = ({ freeze }: { freeze: FreezeInfo | undefined }) =>
  freeze === undefined ? null : (
    <span class="badge badge-frozen" data-frozen={freeze.id} title={`${freeze.reason} (since ${freeze.frozenAt})`}>
      frozen
    </span>
  )

/**
 * Freeze (after a reason and a confirmation) or unfreeze one tenant, wallet or agent. `targetId` undefined:
 * the key's own tenant.
 */
export const FreezeControl = ({ scope, targetId, label }: { scope: FreezeInfo["scope"]; targetId: string | undefined; label: string }) => {
  const { api } = useSession()
  const freezes = useFreezes()
  const { run, error, busy } = useAction()
  const [confirming, setConfirming] = useState(false)
  const [reason, setReason] = useState("")
  const active = targetId === undefined ? freezes.list.find((freeze) => freeze.scope === "tenant") : freezeOf(freezes.list, scope, targetId)
  const act = async (call: () => Promise<unknown>) => {
    await run(call)
    setConfirming(false)
    setReason("")
    await freezes.reload()
  }
  if (active !== undefined) {
    return (
      <span class="freeze-control">
        <button onClick={() => void act(() => api("POST", `/api/v1/risk/freezes/${active.id}/lift`, {}))} disabled={busy} data-action="unfreeze">
          Unfreeze {label}
        </button>
        <ErrorBox error={error} />
      </span>
    )
  }
  if (!confirming) {
    return (
      <button class="danger" onClick={() => setConfirming(true)} data-action="freeze">
        Freeze {label}
      </button>
    )
  }
  const body = { scope, ...(targetId === undefined ? {} : { targetId }), reason: reason.trim() }
  return (
    <span class="freeze-control confirming">
      <span>Nothing of this {scope} will be signed until it is unfrozen.</span>
      <input name="freezeReason" placeholder="reason (required)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      <button class="danger" disabled={busy || reason.trim() === ""} onClick={() => void act(() => api("POST", "/api/v1/risk/freezes", body))} data-action="confirm-freeze">
        Confirm freeze
      </button>
      <button onClick={() => setConfirming(false)} data-action="cancel-freeze">
        Cancel
      </button>
      <ErrorBox error={error} />
    </span>
  )
}
