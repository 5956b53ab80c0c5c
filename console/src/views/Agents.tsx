/**
 * Agents: status, budget and spend, autonomy state, pause / resume / stop / start, manifests; and the
 * runtime's supervised actors (GET /api/v1/runtime/actors, refreshed every second) with their status,
 * restarts and last error.
 */
import { Fragment } from "preact"
import { useState } from "preact/hooks"
import { Badge, ErrorBox, Gate, Json, Section, ShortId, time } from "../components"
import { useSession } from "../session"
import type { Actor, Agent } from "../types"
import { useAction, useApi } from "../useApi"
import { FreezeControl, freezeOf, FrozenBadge, useFreezes } from "../freeze"

interface Budget {
  readonly budgetLamports?: number
  readonly remainingLamports?: number
  readonly spentLamportsToday: number
}

const ManifestForm = ({ agent }: { agent: Agent }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [intents, setIntents] = useState(agent.allowedIntents.join(","))
  const [protocols, setProtocols] = useState((agent.allowedProtocols ?? ["system-program"]).join(","))
  const [ttl, setTtl] = useState("3600")
  const [manifest, setManifest] = useState<unknown>(undefined)
  const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "")
  const issue = async (event: Event) => {
    event.preventDefault()
    const issued = await run(() =>
      api("POST", `/api/v1/agents/${agent.id}/manifest/issue`, { allowedIntents: list(intents), allowedProtocols: list(protocols), ttlSeconds: Number(ttl) })
    )
    if (issued !== undefined) setManifest(issued)
  }
  return (
    <form class="inline-form" onSubmit={issue}>
      <input name="intents" value={intents} onInput={(e) => setIntents(e.currentTarget.value)} title="allowed intents, comma separated" />
      <input name="protocols" value={protocols} onInput={(e) => setProtocols(e.currentTarget.value)} title="allowed protocols, comma separated" />
      <input name="ttlSeconds" type="number" min="1" value={ttl} onInput={(e) => setTtl(e.currentTarget.value)} title="time to live, seconds" />
      <button type="submit" disabled={busy}>
        Issue manifest
      </button>
      <ErrorBox error={error} />
      {manifest === undefined ? null : <Json value={manifest} />}
    </form>
  )
}

const AgentDetail = ({ agent, onChanged }: { agent: Agent; onChanged: () => void }) => {
  const { api } = useSession()
  const budget = useApi<Budget>(`/api/v1/agents/${agent.id}/budget`)
  const autonomy = useApi<unknown>(`/api/v1/agents/${agent.id}/autonomy/state`)
  const { run, error, busy } = useAction()
  const [reason, setReason] = useState("")
  const transition = async (action: "start" | "pause" | "resume" | "stop") => {
    await run(() => api("POST", `/api/v1/agents/${agent.id}/${action}`, action === "pause" && reason.trim() !== "" ? { reason: reason.trim() } : undefined))
    onChanged()
    void budget.reload()
    void autonomy.reload()
  }
  return (
    <div class="agent-detail" data-agent-detail={agent.id}>
      <div class="actions">
        <button onClick={() => void transition("start")} disabled={busy || agent.status === "running"} data-action="start">
          Start
        </button>
        <input name="pauseReason" placeholder="pause reason (optional)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <button onClick={() => void transition("pause")} disabled={busy || agent.status !== "running"} data-action="pause">
          Pause
        </button>
        <button onClick={() => void transition("resume")} disabled={busy || agent.status !== "paused"} data-action="resume">
          Resume
        </button>
        <button class="danger" onClick={() => void transition("stop")} disabled={busy || agent.status === "stopped"} data-action="stop">
          Stop
        </button>
      </div>
      <div class="actions">
        <FreezeControl scope="agent" targetId={agent.id} label="agent" />
      </div>
      <ErrorBox error={error} />
      <h3>Budget</h3>
      <ErrorBox error={budget.error} />
      {budget.data === undefined ? null : (
        <p data-testid="budget">
          spent today {budget.data.spentLamportsToday} lamports
          {budget.data.budgetLamports === undefined ? " (no budget set)" : ` of ${budget.data.budgetLamports} (${budget.data.remainingLamports ?? 0} left)`}
        </p>
      )}
      <h3>Autonomy state</h3>
      <ErrorBox error={autonomy.error} />
      {autonomy.data === undefined ? null : <Json value={autonomy.data} />}
      <h3>Capability manifest</h3>
      <ManifestForm agent={agent} />
    </div>
  )
}

const Actors = () => {
  const actors = useApi<{ actors: ReadonlyArray<Actor> }>("/api/v1/runtime/actors", { pollMs: 1000 })
  return (
    <Section title="Runtime actors">
      <Gate scope="agents" error={actors.error}>
        <table data-testid="actors">
          <thead>
            <tr>
              <th>actor</th>
              <th>kind</th>
              <th>status</th>
              <th>restarts</th>
              <th>queue</th>
              <th>started</th>
              <th>last error</th>
            </tr>
          </thead>
          <tbody>
            {(actors.data?.actors ?? []).map((actor) => (
              <tr key={actor.name} data-actor={actor.name} data-status={actor.status}>
                <td>
                  <code>{actor.name}</code>
                </td>
                <td>{actor.kind}</td>
                <td>
                  <Badge status={actor.status} />
                </td>
                <td>{actor.restarts}</td>
                <td>{actor.queueDepth}</td>
                <td>{time(actor.startedAt)}</td>
                <td class={actor.lastError === null ? "muted" : "error"}>{actor.lastError ?? "-"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Gate>
    </Section>
  )
}

export const Agents = () => {
  const agents = useApi<{ agents: ReadonlyArray<Agent> }>("/api/v1/agents")
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const freezes = useFreezes()
  return (
    <>
      <Section title="Agents">
        <Gate scope="agents" error={agents.error}>
          <table data-testid="agents">
            <thead>
              <tr>
                <th>agent</th>
                <th>id</th>
                <th>status</th>
                <th>mode</th>
                <th>autonomy</th>
                <th>budget</th>
                <th>wallet</th>
              </tr>
            </thead>
            <tbody>
              {(agents.data?.agents ?? []).map((agent) => (
                <Fragment key={agent.id}>
                  <tr data-agent={agent.id} data-status={agent.status} class={selected === agent.id ? "selected" : "clickable"} onClick={() => setSelected(selected === agent.id ? undefined : agent.id)}>
                    <td>{agent.name}</td>
                    <td>
                      <ShortId id={agent.id} />
                    </td>
                    <td>
                      <Badge status={agent.status} /> <FrozenBadge freeze={freezeOf(freezes.list, "agent", agent.id) ?? freezeOf(freezes.list, "wallet", agent.walletId)} />
                    </td>
                    <td>{agent.executionMode}</td>
                    <td>{agent.autonomy?.enabled === true ? `${agent.autonomy.mode}, every ${agent.autonomy.cadenceSeconds ?? "?"} s` : "off"}</td>
                    <td>{agent.budgetLamports ?? "-"}</td>
                    <td>
                      <ShortId id={agent.walletId} />
                    </td>
                  </tr>
                  {selected === agent.id ? (
                    <tr key={`${agent.id}-detail`}>
                      <td colSpan={7}>
                        <AgentDetail agent={agent} onChanged={() => void agents.reload()} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </Gate>
      </Section>
      <Actors />
    </>
  )
}
