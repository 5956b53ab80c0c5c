/**
 * Property against the real store: whatever sequence of updates and migrations a policy goes
 * through, every version once written reads back unchanged, versions are 1..n without gaps, and the
 * current policy equals its latest version. Also: SQL refuses to UPDATE or DELETE a version row.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Policy } from "../../schemas/policy.js"
import type { CallerInfo } from "../../src/gateway/caller.js"
import { PolicyService } from "../../src/policy/policyService.js"
import { rulesJson } from "./arbitraries.js"
import { type EngineHarness, startEngine } from "./engineHarness.js"

let engine: EngineHarness
beforeAll(async () => {
  engine = await startEngine()
}, 60_000)
afterAll(async () => {
  await engine?.stop()
})

const caller: CallerInfo = { keyId: "k", tenant: "default", readTenant: "default", scopes: new Set(), traceId: "t" }

type Step =
  | { readonly kind: "update"; readonly name?: string | undefined; readonly active?: boolean | undefined; readonly rules?: ReadonlyArray<unknown> | undefined }
  | { readonly kind: "migrate"; readonly target: number; readonly mode: "safe" | "force" | "dry_run" }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record(
    { kind: fc.constant("update" as const), name: fc.string({ minLength: 1, maxLength: 20 }), active: fc.boolean(), rules: rulesJson },
    { requiredKeys: ["kind"] }
  ),
  fc.record({ kind: fc.constant("migrate" as const), target: fc.integer({ min: 1, max: 12 }), mode: fc.constantFrom("safe" as const, "force" as const, "dry_run" as const) })
)

/** Typed refusals a step may meet: invalid rules, a target version that does not exist, an unsafe migration. */
const REFUSALS = new Set(["ValidationError", "NotFound", "PolicyViolation", "InvalidState"])

describe("policy version history", () => {
  it("never changes a version once written; a refused step writes nothing", async () => {
    const walletId = await engine.createWallet()
    const ran = { updated: 0, updateRefused: 0, migrated: 0, migrateRefused: 0 }
    await fc.assert(
      fc.asyncProperty(rulesJson, fc.array(step, { maxLength: 10 }), async (initial, steps) => {
        const service = <A>(effect: (s: PolicyService) => Effect.Effect<A, unknown>) => engine.run(Effect.flatMap(PolicyService, effect))
        // Invalid rule sets (the generator makes some) are refused and write nothing; start from a valid one.
        const first = await service((s) => Effect.either(s.create(caller, { walletId, name: "prop", active: true, rules: initial })))
        const created = (first._tag === "Right" ? first.right : await service((s) => s.create(caller, { walletId, name: "prop", active: true, rules: [] }))).policy
        const seen: Array<Policy> = [created]
        for (const s of steps) {
          // A defect (anything but a typed refusal) rejects here and fails the property.
          const outcome =
            s.kind === "update"
              ? await service((svc) => Effect.either(svc.update(caller, created.id, s)))
              : await service((svc) => Effect.either(svc.migrate(caller, created.id, s.target, s.mode)))
          const versions = (await service((svc) => svc.versions(caller, created.id, { limit: 100, offset: 0 }))).versions as ReadonlyArray<Policy>
          if (outcome._tag === "Left") {
            expect(REFUSALS).toContain((outcome.left as { _tag: string })._tag)
            expect(versions.length).toBe(seen.length)
            ran[s.kind === "update" ? "updateRefused" : "migrateRefused"]++
          } else {
            // An update always appends a version; a migration appends at most one (none for a dry run).
            if (s.kind === "update") expect(versions.length).toBe(seen.length + 1)
            else expect(versions.length).toBeLessThanOrEqual(seen.length + (s.mode === "dry_run" ? 0 : 1))
            ran[s.kind === "update" ? "updated" : "migrated"]++
          }
          // Every version seen before reads back exactly as it was.
          for (const old of seen) expect(versions[old.version - 1]).toEqual(old)
          expect(versions.map((v) => v.version)).toEqual(versions.map((_, i) => i + 1))
          const current = (await service((svc) => svc.get(caller, created.id))) as Policy
          const latest = versions[versions.length - 1]
          expect({ ...current, createdAt: "", updatedAt: "" }).toEqual({ ...latest, createdAt: "", updatedAt: "" })
          seen.splice(0, seen.length, ...versions)
        }
      }),
      { numRuns: 25 }
    )
    // Each branch of the property ran.
    expect(ran.updated).toBeGreaterThan(0)
    expect(ran.updateRefused).toBeGreaterThan(0)
    expect(ran.migrated).toBeGreaterThan(0)
    expect(ran.migrateRefused).toBeGreaterThan(0)
  }, 120_000)

  it("refuses to update or delete a stored version in SQL", async () => {
    const walletId = await engine.createWallet()
    const policyId = await engine.createPolicy(walletId, [{ type: "max_slippage", maxBps: 1 }])
    const attempt = (statement: string) =>
      engine.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.either))
    const updated = await attempt(`UPDATE policy_versions SET rules = '[]'::jsonb WHERE policy_id = '${policyId}'`)
    const deleted = await attempt(`DELETE FROM policy_versions WHERE policy_id = '${policyId}'`)
    expect(updated._tag).toBe("Left")
    expect(deleted._tag).toBe("Left")
  })
})
