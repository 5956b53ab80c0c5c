/**
 * The console's shell: login, navigation (hash routes `#/<view>/<id>`), and the view. Views the key
 * lacks the scope for are shown disabled in the navigation, with the scope they need.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { forgetKey, SessionContext, sessionOf, storedKey, storeKey } from "./session"
import { type Access, VIEWS } from "./views"
import { Agents } from "./views/Agents"
import { Approvals } from "./views/Approvals"
import { Audit } from "./views/Audit"
import { Keys } from "./views/Keys"
import { Login, probeAccess } from "./views/Login"
import { Operations } from "./views/Operations"
import { Policies } from "./views/Policies"
import { TransactionDetail } from "./views/TransactionDetail"
import { Transactions } from "./views/Transactions"
import { Wallets } from "./views/Wallets"
import { ApiError } from "./api"
import { FreezeBanner, FreezesProvider } from "./freeze"

const currentRoute = () => {
  const [view = "transactions", id] = location.hash.replace(/^#\/?/, "").split("/")
  return { view: view === "" ? "transactions" : view, id }
}

const useRoute = () => {
  const [route, setRoute] = useState(currentRoute)
  useEffect(() => {
    const onChange = () => setRoute(currentRoute())
    addEventListener("hashchange", onChange)
    return () => removeEventListener("hashchange", onChange)
  }, [])
  return route
}

const ViewBody = ({ view, id }: { view: string; id: string | undefined }) => {
  switch (view) {
    case "transactions":
      return id === undefined ? <Transactions /> : <TransactionDetail txId={id} />
    case "approvals":
      return <Approvals />
    case "agents":
      return <Agents />
    case "wallets":
      return <Wallets />
    case "policies":
      return <Policies />
    case "audit":
      return <Audit />
    case "keys":
      return <Keys />
    case "operations":
      return <Operations />
    default:
      return <p class="error">no view named {view}</p>
  }
}

export const App = () => {
  const [apiKey, setApiKey] = useState<string | null>(storedKey)
  const [access, setAccess] = useState<Access | null>(null)
  const [restoreError, setRestoreError] = useState<ApiError | undefined>(undefined)
  const route = useRoute()
  // One session per key: a new one on every render would reload every view's data (and blank the freeze banner)
  // on each navigation.
  const session = useMemo(() => (apiKey === null ? null : sessionOf(apiKey)), [apiKey])

  // A reload of the tab keeps the key: probe again what it may see.
  useEffect(() => {
    if (apiKey === null || access !== null) return
    probeAccess(apiKey).then(setAccess, (error: unknown) => {
      forgetKey()
      setApiKey(null)
      if (error instanceof ApiError) setRestoreError(error)
    })
  }, [apiKey, access])

  if (apiKey === null) {
    return (
      <Login
        message={restoreError?.message}
        onLogin={(key, probed) => {
          storeKey(key)
          setAccess(probed)
          setApiKey(key)
        }}
      />
    )
  }
  const logout = () => {
    forgetKey()
    setAccess(null)
    setApiKey(null)
  }
  const current = VIEWS.find((view) => view.id === route.view)
  const refusal = access === null || current === undefined ? undefined : access[current.id]
  return (
    <SessionContext.Provider value={session}>
      <FreezesProvider>
      <div class="shell">
        <nav>
          <div class="brand">agent-custody</div>
          {VIEWS.map((view) => {
            const refused = access?.[view.id]
            return refused === undefined ? (
              <a key={view.id} href={`#/${view.id}`} class={route.view === view.id ? "active" : ""} data-view={view.id}>
                {view.title}
              </a>
            ) : (
              <span key={view.id} class="nav-disabled" title={refused} data-view={view.id} aria-disabled="true">
                {view.title}
                <small>needs scope {view.scope}</small>
              </span>
            )
          })}
          <button class="link" onClick={logout}>
            Log out
          </button>
        </nav>
        <main class="content">
          <FreezeBanner />
          {access === null ? (
            <p class="muted">checking the key…</p>
          ) : refusal !== undefined && current !== undefined ? (
            <div class="disabled" data-testid="needs-scope">
              <strong>needs scope {current.scope}</strong>
              <span>{refusal}</span>
            </div>
          ) : (
            <ViewBody view={route.view} id={route.id} />
          )}
        </main>
      </div>
      </FreezesProvider>
    </SessionContext.Provider>
  )
}
