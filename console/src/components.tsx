/** Small pieces every view uses: error boxes, the scope gate, status badges, JSON, ids. */
import type { ComponentChildren } from "preact"
import type { ApiError } from "./api"

/** An API error as the envelope's message. */
export const ErrorBox = ({ error }: { error: ApiError | undefined }) =>
  error === undefined ? null : (
    <p class="error" role="alert" data-testid="api-error">
      {error.message}
    </p>
  )

/**
 * What a view shows for a route it could not load: a key without the route's scope sees the view
 * disabled (naming the scope), any other error its message.
 */
export const Gate = (props: { scope: string; error: ApiError | undefined; children: ComponentChildren }) => {
  if (props.error?.isMissingScope === true) {
    return (
      <div class="disabled" data-testid="needs-scope">
        <strong>needs scope {props.scope}</strong>
        <span>{props.error.message}</span>
      </div>
    )
  }
  return (
    <>
      <ErrorBox error={props.error} />
      {props.children}
    </>
  )
}

export const Badge = ({ status }: { status: string }) => <span class={`badge badge-${status}`}>{status}</span>

export const Json = ({ value }: { value: unknown }) => <pre class="json">{JSON.stringify(value, null, 2)}</pre>

export const ShortId = ({ id }: { id: string | undefined | null }) =>
  id === undefined || id === null ? <span class="muted">-</span> : <code title={id}>{id.slice(0, 8)}</code>

export const time = (iso: string | undefined | null) => (iso === undefined || iso === null ? "-" : new Date(iso).toLocaleTimeString())

export const Section = (props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) => (
  <section class="panel">
    <header>
      <h2>{props.title}</h2>
      {props.actions}
    </header>
    {props.children}
  </section>
)
