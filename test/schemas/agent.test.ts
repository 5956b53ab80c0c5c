import { describe, expect, it } from "vitest"
import * as Schema from "effect/Schema"
import { Autonomy, CreateAgentBody, ExecuteBody, IssueManifestBody, ManifestFromHeader, PauseBody } from "../../schemas/agent.js"
import { decodeOk, issuesOf, pathsOf } from "./decode.js"

describe("CreateAgentBody", () => {
  it("applies the spec's defaults", () => {
    expect(decodeOk(CreateAgentBody, { name: "trader" })).toEqual({
      name: "trader",
      executionMode: "autonomous",
      allowedIntents: ["transfer_sol", "transfer_spl", "query_balance"]
    })
  })

  it("names a bad name, mode, intent and budget", () => {
    const input = { name: "", executionMode: "manual", allowedIntents: ["transfer_sol", "rug_pull"], budgetLamports: -1 }
    expect(pathsOf(CreateAgentBody, input)).toEqual(["allowedIntents.1", "budgetLamports", "executionMode", "name"])
  })

  it("takes the budget as a number or an exact string", () => {
    expect(decodeOk(CreateAgentBody, { name: "a", budgetLamports: "18446744073709551615" }).budgetLamports).toBe(18446744073709551615n)
    expect(decodeOk(CreateAgentBody, { name: "a", budgetLamports: 5_000_000 }).budgetLamports).toBe(5_000_000n)
  })
})

describe("Autonomy", () => {
  it("fills defaults for a minimal configuration and its steps", () => {
    const decoded = decodeOk(Autonomy, { enabled: true, steps: [{ id: "s1", type: "query_balance", protocol: "system-program" }] })
    expect(decoded).toEqual({
      enabled: true,
      mode: "execute",
      cadenceSeconds: 60,
      maxActionsPerHour: 60,
      steps: [
        {
          id: "s1",
          type: "query_balance",
          protocol: "system-program",
          intent: {},
          cooldownSeconds: 0,
          maxRuns: 1_000_000,
          paperOnly: false,
          gasless: false
        }
      ],
      rules: []
    })
  })

  it("bounds cadence, hourly actions, cooldown and runs", () => {
    const input = {
      cadenceSeconds: 0,
      maxActionsPerHour: 3601,
      steps: [{ id: "s1", type: "transfer_sol", protocol: "system-program", cooldownSeconds: 604_801, maxRuns: 0 }]
    }
    expect(pathsOf(Autonomy, input)).toEqual(["cadenceSeconds", "maxActionsPerHour", "steps.0.cooldownSeconds", "steps.0.maxRuns"])
    expect(issuesOf(Autonomy, { cadenceSeconds: 86_401 })).toEqual([{ path: "cadenceSeconds", message: "must be between 1 and 86400" }])
  })

  it("checks rule conditions and refuses duplicate ids", () => {
    const rule = {
      id: "r1",
      when: [{ metric: "balance_lamports", op: "gte", value: 1_000_000 }],
      then: { type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: 1000 } }
    }
    expect(decodeOk(Autonomy, { rules: [rule] }).rules[0]?.maxRuns).toBe(1_000_000)
    expect(pathsOf(Autonomy, { rules: [{ ...rule, when: [{ metric: "price", op: "approx", value: 1 }] }] })).toEqual([
      "rules.0.when.0.metric",
      "rules.0.when.0.op"
    ])
    expect(issuesOf(Autonomy, { rules: [rule, rule] })).toEqual([{ path: "rules.1.id", message: "duplicate rule id 'r1'" }])
  })
})

describe("IssueManifestBody", () => {
  it("decodes the canonical names and defaults ttlSeconds to 3600", () => {
    expect(decodeOk(IssueManifestBody, { allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"] })).toEqual({
      allowedIntents: ["transfer_sol"],
      allowedProtocols: ["system-program"],
      ttlSeconds: 3600
    })
  })

  it("accepts the aliases intents, protocols and ttl", () => {
    expect(decodeOk(IssueManifestBody, { intents: ["swap"], protocols: ["amm-one"], ttl: 60 })).toEqual({
      allowedIntents: ["swap"],
      allowedProtocols: ["amm-one"],
      ttlSeconds: 60
    })
  })

  it("lets the canonical name win when both are given", () => {
    const decoded = decodeOk(IssueManifestBody, {
      allowedIntents: ["transfer_sol"],
      intents: ["swap"],
      allowedProtocols: ["system-program"],
      protocols: ["amm-one"],
      ttlSeconds: 120,
      ttl: 60
    })
    expect(decoded).toEqual({ allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"], ttlSeconds: 120 })
  })

  it("names the missing lists and an out-of-range ttl", () => {
    expect(issuesOf(IssueManifestBody, {})).toEqual([
      { path: "allowedIntents", message: "is missing" },
      { path: "allowedProtocols", message: "is missing" }
    ])
    expect(issuesOf(IssueManifestBody, { intents: ["swap"], protocols: ["amm-one"], ttlSeconds: 2_592_001 })).toEqual([
      { path: "ttlSeconds", message: "must be between 1 and 2592000" }
    ])
    expect(pathsOf(IssueManifestBody, { intents: ["swap"], protocols: ["moon"] })).toEqual(["protocols.0"])
  })

  it("encodes back with canonical names only", () => {
    const decoded = decodeOk(IssueManifestBody, { intents: ["swap"], protocols: ["amm-one"] })
    expect(Schema.encodeSync(IssueManifestBody)(decoded)).toEqual({
      allowedIntents: ["swap"],
      allowedProtocols: ["amm-one"],
      ttlSeconds: 3600
    })
  })
})

describe("ExecuteBody and manifest header", () => {
  it("defaults intent and gasless", () => {
    expect(decodeOk(ExecuteBody, { type: "query_balance", protocol: "system-program" })).toEqual({
      type: "query_balance",
      protocol: "system-program",
      intent: {},
      gasless: false
    })
  })

  it("reads a manifest from base64 JSON", () => {
    const manifest = { agentId: "x", nonce: "n" }
    const header = Buffer.from(JSON.stringify(manifest)).toString("base64")
    expect(decodeOk(ManifestFromHeader, header)).toEqual(manifest)
    expect(issuesOf(ManifestFromHeader, "%%%").length).toBeGreaterThan(0)
  })

  it("bounds the pause reason", () => {
    expect(decodeOk(PauseBody, {})).toEqual({})
    expect(pathsOf(PauseBody, { reason: "x".repeat(257) })).toEqual(["reason"])
  })
})
