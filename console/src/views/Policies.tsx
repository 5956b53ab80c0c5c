/**
 * Policies of a wallet with their versions, a line diff between two versions (jsdiff), and a what-if
 * evaluation (POST /api/v1/evaluate) of an intent against the wallet's active policies.
 */
import { diffLines } from "diff"
import { Fragment } from "preact"
import { useEffect, useState } from "preact/hooks"
import { Badge, ErrorBox, Gate, Section } from "../components"
import { useSession } from "../session"
import type { Policy, PolicyDecision, Wallet } from "../types"
import { useAction, useApi } from "../useApi"
import { Backtest, ShadowDisagreements } from "../riskViews"
import { TRANSACTION_TYPES } from "./transactionTypes"

const versionText = (policy: Policy) => JSON.stringify({ name: policy.name, active: policy.active, rules: policy.rules }, null, 2)

const VersionDiff = ({ policy }: { policy: Policy }) => {
  const versions = useApi<{ versions: ReadonlyArray<Policy> }>(`/api/v1/policies/${policy.id}/versions?limit=100`)
  const [from, setFrom] = useState(Math.max(1, policy.version - 1))
  const [to, setTo] = useState(policy.version)
  const list = versions.data?.versions ?? []
  const a = list.find((version) => version.version === from)
  const b = list.find((version) => version.version === to)
  const select = (value: number, set: (n: number) => void, name: string) => (
    <select name={name} value={value} onChange={(e) => set(Number(e.currentTarget.value))}>
      {list.map((version) => (
        <option key={version.version} value={version.version}>
          version {version.version}
        </option>
      ))}
    </select>
  )
  return (
    <div>
      <ErrorBox error={versions.error} />
      <p>
        {list.length} version(s). Compare {select(from, setFrom, "from")} with {select(to, setTo, "to")}
      </p>
      {a === undefined || b === undefined ? null : (
        <pre class="diff" data-testid="policy-diff">
          {diffLines(versionText(a), versionText(b)).map((part, index) => (
            <span key={index} class={part.added ? "added" : part.removed ? "removed" : ""}>
              {part.value
                .replace(/\n$/, "")
                .split("\n")
                .map((line) => `${part.added ? "+ " : part.removed ? "- " : "  "}${line}\n`)
                .join("")}
            </span>
          ))}
        </pre>
      )}
    </div>
  )
}

const WhatIf = ({ walletId }: { walletId: string }) => {
  const { api } = useSession()
  const { run, error, busy } = useAction()
  const [form, setForm] = useState({ type: "transfer_sol", protocol: "system-program", destination: "", amountLamports: "1000000" })
  const [decision, setDecision] = useState<PolicyDecision | undefined>(undefined)
  const field = (name: keyof typeof form) => ({ name, value: form[name], onInput: (e: { currentTarget: HTMLInputElement }) => setForm({ ...form, [name]: e.currentTarget.value }) })
  const evaluate = async (event: Event) => {
    event.preventDefault()
    setDecision(
      await run(() =>
        api<PolicyDecision>("POST", "/api/v1/evaluate", {
          walletId,
          type: form.type,
          protocol: form.protocol,
          ...(form.destination.trim() === "" ? {} : { destination: form.destination.trim() }),
          ...(form.amountLamports.trim() === "" ? {} : { amountLamports: Number(form.amountLamports) })
        })
      )
    )
  }
  return (
    <form class="inline-form" onSubmit={evaluate} data-testid="what-if">
      <select name="type" value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value })}>
        {TRANSACTION_TYPES.map((type) => (
          <option key={type}>{type}</option>
        ))}
      </select>
      <input placeholder="protocol" {...field("protocol")} />
      <input placeholder="destination" {...field("destination")} />
      <input placeholder="amount (lamports)" type="number" {...field("amountLamports")} />
      <button type="submit" disabled={busy}>
        Evaluate
      </button>
      <ErrorBox error={error} />
      {decision === undefined ? null : (
        <div data-testid="what-if-decision">
          <Badge status={decision.decision} /> risk tier {decision.riskTier}
          <ul>
            {decision.reasons.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </div>
      )}
    </form>
  )
}

export const Policies = () => {
  const wallets = useApi<{ wallets: ReadonlyArray<Wallet> }>("/api/v1/wallets?limit=100")
  const [walletId, setWalletId] = useState<string | undefined>(undefined)
  useEffect(() => {
    const first = wallets.data?.wallets[0]
    // The first wallet until one is chosen: a choice made before this effect ran (the options show a
    // render earlier) must stand, so it reads the state as it is now, not as this render saw it.
    if (first !== undefined) setWalletId((chosen) => chosen ?? first.id)
  }, [wallets.data])
  const policies = useApi<{ policies: ReadonlyArray<Policy> }>(walletId === undefined ? null : `/api/v1/wallets/${walletId}/policies?limit=100`)
  const [selected, setSelected] = useState<string | undefined>(undefined)
  return (
    <>
      <Section title="Policies">
        <Gate scope="wallets" error={wallets.error}>
          <p>
            wallet{" "}
            <select name="wallet" value={walletId} onChange={(e) => setWalletId(e.currentTarget.value)}>
              {(wallets.data?.wallets ?? []).map((wallet) => (
                <option key={wallet.id} value={wallet.id}>
                  {wallet.label ?? wallet.id.slice(0, 8)}
                </option>
              ))}
            </select>
          </p>
          <Gate scope="policies" error={policies.error}>
            <table data-testid="policies">
              <thead>
                <tr>
                  <th>name</th>
                  <th>version</th>
                  <th>active</th>
                  <th>rules</th>
                  <th>updated</th>
                </tr>
              </thead>
              <tbody>
                {(policies.data?.policies ?? []).map((policy) => (
                  <Fragment key={policy.id}>
                    <tr data-policy={policy.id} class="clickable" onClick={() => setSelected(selected === policy.id ? undefined : policy.id)}>
                      <td>{policy.name}</td>
                      <td>{policy.version}</td>
                      <td>{policy.shadow === true ? "shadow" : policy.active ? "yes" : "no"}</td>
                      <td>{policy.rules.map((rule) => String(rule.type)).join(", ")}</td>
                      <td>{new Date(policy.updatedAt).toLocaleString()}</td>
                    </tr>
                    {selected === policy.id ? (
                      <tr key={`${policy.id}-versions`}>
                        <td colSpan={5}>
                          <VersionDiff policy={policy} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                ))}
              </tbody>
            </table>
            {policies.data?.policies.length === 0 ? <p class="muted">this wallet has no policy</p> : null}
          </Gate>
        </Gate>
      </Section>
      {walletId === undefined ? null : (
        <Section title="What-if evaluation">
          <WhatIf walletId={walletId} />
        </Section>
      )}
      {walletId === undefined ? null : (
        <Section title="Backtest a policy version">
          <Backtest walletId={walletId} policies={policies.data?.policies ?? []} />
        </Section>
      )}
      {walletId === undefined ? null : (
        <Section title="Shadow policies: disagreements">
          <ShadowDisagreements walletId={walletId} />
        </Section>
      )}
    </>
  )
}
