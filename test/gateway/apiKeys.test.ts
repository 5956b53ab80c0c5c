/**
 * API_GATEWAY_API_KEYS parsing: the spec's three fields stay valid; the optional fourth `agent=<uuid>` binds a
 * key to an agent and must name the agent's tenant; a malformed entry is an error naming its position, never the
 * key. And the per-address failed-authentication window (authFailureLimiter.ts) on its own clock.
 */
import { describe, expect, it } from "vitest"
import { ApiKeyFormatError, findApiKey, parseApiKeys } from "../../src/gateway/apiKeys.js"
import { AuthFailureLimiter } from "../../src/gateway/authFailureLimiter.js"

const AGENT = "7D0E6C1A-5B8F-4C3E-9A2D-1F4B6E8C0A9D"

describe("parseApiKeys", () => {
  it("keeps the three-field form as an operator's key and binds a four-field one to its agent", () => {
    const keys = parseApiKeys(`ops:*:all; a-ops:tenant-a:agents,transactions ;bot:tenant-a:agents:agent=${AGENT}`)
    expect(keys.map((key) => [key.tenant, [...key.scopes], key.agentId])).toEqual([
      ["*", ["all"], null],
      ["tenant-a", ["agents", "transactions"], null],
      ["tenant-a", ["agents"], AGENT.toLowerCase()]
    ])
    expect(findApiKey(keys, "bot")?.agentId).toBe(AGENT.toLowerCase())
    expect(findApiKey(keys, "nobody")).toBeUndefined()
  })

  it("refuses a bad fourth field, an agent key of tenant *, and extra fields, naming the entry and not the key", () => {
    const cases = [
      ["ok:*:all;secret-key:tenant-a:all:agent=not-a-uuid", /entry 2 has a fourth field that is not agent=<agent uuid>/],
      ["secret-key:tenant-a:all:owner=x", /entry 1 has a fourth field/],
      [`secret-key:*:all:agent=${AGENT}`, /entry 1 binds an agent, so its tenant must be the agent's tenant, not \*/],
      [`secret-key:tenant-a:all:agent=${AGENT}:more`, /entry 1 must look like <key>:<tenant>:<scopes>\[:agent=<agentId>\]/]
    ] as const
    for (const [raw, message] of cases) {
      let thrown: unknown
      try {
        parseApiKeys(raw)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(ApiKeyFormatError)
      expect((thrown as Error).message).toMatch(message)
      expect((thrown as Error).message).not.toContain("secret-key")
    }
  })
})

describe("AuthFailureLimiter", () => {
  it("blocks an address after `limit` failures until its 60 s window restarts, per address", () => {
    const limiter = new AuthFailureLimiter(2)
    const t0 = 1_000_000
    expect(limiter.check("10.0.0.1", t0).blocked).toBe(false)
    limiter.recordFailure("10.0.0.1", t0)
    expect(limiter.check("10.0.0.1", t0 + 1).blocked).toBe(false)
    limiter.recordFailure("10.0.0.1", t0 + 2)
    expect(limiter.check("10.0.0.1", t0 + 3)).toEqual({ blocked: true, limit: 2, resetUnixSeconds: Math.ceil((t0 + 60_000) / 1000) })
    expect(limiter.check("10.0.0.2", t0 + 3).blocked).toBe(false)
    expect(limiter.check("10.0.0.1", t0 + 59_999).blocked).toBe(true)
    expect(limiter.check("10.0.0.1", t0 + 60_000).blocked).toBe(false)
    limiter.recordFailure("10.0.0.1", t0 + 60_001)
    expect(limiter.check("10.0.0.1", t0 + 60_002).blocked).toBe(false)
  })
})
