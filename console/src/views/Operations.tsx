/** Outbox stats, RPC pool scores and metric counters as small charts, refreshed every two seconds. */
import { BarChart } from "../charts"
import { Gate, Section } from "../components"
import { useApi } from "../useApi"
import { useState } from "preact/hooks"
import { FreezeControl, useFreezes } from "../freeze"

interface Endpoint {
  readonly url: string
  readonly score: number
  readonly successes: number
  readonly failures: number
  readonly avgLatencyMs: number
  readonly lastError?: string
}

const REFRESH = { pollMs: 2000 }

/** The kill switch of a tenant (the key's own, or the one a deployment-wide key names) and every freeze in force. */
const KillSwitch = () => {
  const freezes = useFreezes()
  const [tenant, setTenant] = useState("")
  return (
    <Section title="Kill switch">
      <div class="actions" data-testid="kill-switch">
        <input name="freezeTenant" placeholder="tenant (empty: this key's)" value={tenant} onInput={(e) => setTenant(e.currentTarget.value)} />
        <FreezeControl scope="tenant" targetId={tenant.trim() === "" ? undefined : tenant.trim()} label="tenant" />
      </div>
      <table data-testid="freezes">
        <thead>
          <tr>
            <th>scope</th>
            <th>target</th>
            <th>since</th>
            <th>reason</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {freezes.list.map((freeze) => (
            <tr key={freeze.id} data-freeze={freeze.id}>
              <td>{freeze.scope}</td>
              <td>
                <code>{freeze.targetId}</code>
              </td>
              <td>{new Date(freeze.frozenAt).toLocaleString()}</td>
              <td>{freeze.reason}</td>
              <td>
                <FreezeControl scope={freeze.scope} targetId={freeze.targetId} label={freeze.scope} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

export const Operations = () => {
  const outbox = useApi<Record<string, number>>("/api/v1/outbox/stats", REFRESH)
  const pool = useApi<{ endpoints: ReadonlyArray<Endpoint> }>("/api/v1/rpc/pool/status", REFRESH)
  const metrics = useApi<Record<string, number>>("/api/v1/metrics", REFRESH)
  // Totals of milliseconds are not counts: shown as an average beside the counters, not among them.
  const isDuration = (name: string) => /_ms(_|$)/.test(name)
  const counters = Object.entries(metrics.data ?? {})
    .filter(([name, value]) => typeof value === "number" && !isDuration(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
  const confirmed = metrics.data?.["tx.confirmed"] ?? 0
  const latencyTotal = metrics.data?.["tx.confirmation_latency_ms_total"] ?? 0
  return (
    <>
      <KillSwitch />
      <Section title="Outbox">
        <Gate scope="transactions" error={outbox.error}>
          <BarChart testId="outbox-chart" bars={["pending", "processing", "done", "failed"].map((status) => ({ label: status, value: outbox.data?.[status] ?? 0 }))} />
        </Gate>
      </Section>
      <Section title="RPC pool scores">
        <Gate scope="transactions" error={pool.error}>
          <BarChart
            testId="rpc-chart"
            max={1}
            bars={(pool.data?.endpoints ?? []).map((endpoint) => ({
              label: endpoint.url,
              value: endpoint.score,
              text: `${endpoint.score.toFixed(2)} · ${endpoint.avgLatencyMs.toFixed(0)} ms · ${endpoint.successes} ok / ${endpoint.failures} failed`
            }))}
          />
        </Gate>
      </Section>
      <Section title="Metrics (top 20 counters)">
        <Gate scope="audit" error={metrics.error}>
          <p class="muted" data-testid="confirmation-latency">
            average confirmation latency: {confirmed === 0 ? "-" : `${Math.round(latencyTotal / confirmed)} ms over ${confirmed} confirmed`}
          </p>
          <BarChart testId="metrics-chart" bars={counters.map(([name, value]) => ({ label: name, value }))} />
        </Gate>
      </Section>
    </>
  )
}
