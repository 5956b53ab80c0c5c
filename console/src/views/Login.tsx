/** Login with an API key: the key is checked against the API before it is kept (for this tab only). */
import { useState } from "preact/hooks"
import { ApiError, call } from "../api"
import { VIEWS, type Access } from "../views"

/** Probes every view's route: 401 refuses the key, 403 disables the view, anything else enables it. */
export const probeAccess = async (apiKey: string): Promise<Access> => {
  const outcomes = await Promise.all(
    VIEWS.map(async (view): Promise<[string, string | undefined]> => {
      try {
        await call(apiKey, "GET", view.probe)
        return [view.id, undefined]
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        if (error.httpStatus === 401 || error.httpStatus === 0) throw error
        return [view.id, error.httpStatus === 403 ? error.message : undefined]
      }
    })
  )
  return Object.fromEntries(outcomes)
}

export const Login = (props: { onLogin: (apiKey: string, access: Access) => void; message?: string }) => {
  const [key, setKey] = useState("")
  const [error, setError] = useState<string | undefined>(props.message)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      props.onLogin(key.trim(), await probeAccess(key.trim()))
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="login">
      <form onSubmit={submit} class="panel">
        <h1>agent-custody console</h1>
        <p class="muted">Log in with an API key. It is kept for this tab only and sent to the API as x-api-key.</p>
        <label>
          API key
          <input name="apiKey" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
        </label>
        <button type="submit" disabled={busy || key.trim() === ""}>
          Log in
        </button>
        {error === undefined ? null : (
          <p class="error" role="alert" data-testid="login-error">
            {error}
          </p>
        )}
      </form>
    </main>
  )
}
