/**
 * Policy operations behind the HTTP routes: create (rules validated per type, field-level errors),
 * update as a new version, versions, migration and the wallet's policies. Tenancy: a policy belongs
 * to its wallet's tenant; the wallet must be visible to the caller (docs/decisions/policy.md).
 */
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { InvalidState, NotFound, ValidationError } from "../../schemas/errors.js"
import { PolicyRules, type MigrationMode, type MigrationResult, type PolicyRule } from "../../schemas/policy.js"
import type { PageRequest } from "../db/keysetPage.js"
import type { CallerInfo } from "../gateway/caller.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { compileRules } from "./compileRules.js"
import { planMigration } from "./migration.js"
import { PolicyRepo } from "./policyRepo.js"
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"

const encodeRules = Schema.encodeSync(PolicyRules)

/** Decodes rules one by one so the 400 names the rule and field, e.g. `rules[0].maxBps: must be between 0 and 10000`. */
export const validateRules = (raw: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<PolicyRule>, ValidationError> => {
  const compiled = compileRules(raw)
  const issues = compiled.flatMap((rule) => (rule.ok ? [] : rule.issues))
  if (issues.length === 0) return Effect.succeed(compiled.flatMap((rule) => (rule.ok ? [rule.rule] : [])))
  const first = issues[0]
  const field = first.slice(0, first.indexOf(": ") === -1 ? first.length : first.indexOf(": "))
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : ""
  return Effect.fail(new ValidationError({ message: `${first}${more}`, field }))
}

export interface MigrationOutcome {
  readonly result: MigrationResult
  /** Set when the migration was refused (safe and less restrictive, or target rules undecodable). */
  readonly refused?: InvalidState
}

export class PolicyService extends Effect.Service<PolicyService>()("PolicyService", {
  dependencies: [PolicyRepo.Default, WalletRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* PolicyRepo
    const wallets = yield* WalletRepo

    const visibleWallet = (caller: CallerInfo, walletId: string) =>
      Effect.flatMap(wallets.find(walletId, caller.readTenant), (wallet) =>
        wallet === undefined ? Effect.fail(new NotFound({ resource: "wallet", id: walletId })) : Effect.succeed(wallet)
      )

    const get = (caller: CallerInfo, id: string) =>
      Effect.flatMap(repo.find(id, caller.readTenant), (stored) =>
        stored === undefined ? Effect.fail(new NotFound({ resource: "policy", id })) : Effect.succeed(stored.policy)
      )

    /**
     * A new policy (`created`), or, for an `idempotencyKey` its wallet's tenant used before with the same
     * request, the policy it made as it stands now (a create whose answer was lost, sent again).
     */
    const create = (caller: CallerInfo, body: { walletId: string; name: string; active: boolean; shadow?: boolean | undefined; rules: ReadonlyArray<unknown>; approvalsRequired?: number | undefined; idempotencyKey?: string | undefined }) =>
      Effect.gen(function* () {
        const rules = yield* validateRules(body.rules)
        const wallet = yield* visibleWallet(caller, body.walletId)
        const encoded = encodeRules(rules)
        const request = JSON.stringify({ walletId: body.walletId, name: body.name, active: body.active, shadow: body.shadow ?? false, rules: encoded, approvalsRequired: body.approvalsRequired ?? null })
        const key = body.idempotencyKey
        const madeBefore = Effect.gen(function* () {
          const earlier = yield* repo.byIdempotencyKey(wallet.tenantId, key ?? "")
          if (earlier === undefined) return yield* Effect.fail(idempotencyKeyTaken(key ?? "", undefined))
          if (earlier.request !== request) {
            return yield* Effect.fail(idempotencyKeyTaken(key ?? "", { resource: "policy", id: earlier.stored.policy.id }))
          }
          return { policy: earlier.stored.policy, created: false }
        })
        const stored = yield* repo.create({
          id: randomUUID(),
          tenantId: wallet.tenantId,
          walletId: body.walletId,
          name: body.name,
          active: body.active,
          shadow: body.shadow,
          rules: encoded,
          approvalsRequired: body.approvalsRequired,
          idempotency: key === undefined ? undefined : { key, request }
        })
        // undefined: the key was used before (a repeat, or a create sent at the same time): nothing was written
        return stored === undefined ? yield* madeBefore : { policy: stored.policy, created: true }
      })

    const update = (caller: CallerInfo, id: string, body: { name?: string | undefined; active?: boolean | undefined; rules?: ReadonlyArray<unknown> | undefined; approvalsRequired?: number | null | undefined }) =>
      Effect.gen(function* () {
        const rules = body.rules === undefined ? undefined : encodeRules(yield* validateRules(body.rules))
        const stored = yield* repo.appendVersion(id, caller.readTenant, { name: body.name, active: body.active, rules, approvalsRequired: body.approvalsRequired })
        if (stored === undefined || stored === "stale") return yield* Effect.fail(new NotFound({ resource: "policy", id }))
        return stored.policy
      })

    const versions = (caller: CallerInfo, id: string, page: PageRequest) =>
      Effect.gen(function* () {
        if ((yield* repo.find(id, caller.readTenant)) === undefined) return yield* Effect.fail(new NotFound({ resource: "policy", id }))
        return yield* repo.listVersions(id, caller.readTenant, page)
      })

    const version = (caller: CallerInfo, id: string, v: number) =>
      Effect.flatMap(repo.findVersion(id, v, caller.readTenant), (row) =>
        row === undefined ? Effect.fail(new NotFound({ resource: "policy version", id: `${id} v${v}` })) : Effect.succeed(row.policy)
      )

    /** Makes the target version's rules current again as a NEW version (history stays append-only). */
    const migrate = (caller: CallerInfo, id: string, targetVersion: number, mode: MigrationMode) =>
      Effect.gen(function* () {
        const current = yield* get(caller, id)
        if (targetVersion === current.version) {
          // Already there: nothing to change, and no new version that would only repeat the current one.
          const result: MigrationResult = {
            policyId: id, mode, fromVersion: current.version, targetVersion, applied: false, unchanged: true,
            moreRestrictiveOrEqual: true, differences: [], message: `policy is already at version ${current.version}: nothing changed`, policy: current
          }
          return { result } satisfies MigrationOutcome
        }
        const target = yield* version(caller, id, targetVersion)
        const plan = planMigration(current.rules, target.rules, mode)
        const base = {
          policyId: id,
          mode,
          fromVersion: current.version,
          targetVersion,
          moreRestrictiveOrEqual: plan.moreRestrictiveOrEqual,
          differences: [...plan.errors.map((e) => `target ${e}`), ...plan.differences]
        }
        if (!plan.proceed) {
          const result: MigrationResult = { ...base, applied: false }
          if (mode === "dry_run") return { result } satisfies MigrationOutcome
          const why = plan.errors.length > 0 ? "the target version's rules do not decode" : "the target version is less restrictive; use mode force"
          return {
            result,
            refused: new InvalidState({ message: `migration refused: ${why}: ${base.differences.join("; ")}`, currentState: `v${current.version}` })
          } satisfies MigrationOutcome
        }
        const stored = yield* repo.appendVersion(id, caller.readTenant, { rules: target.rules, expectedVersion: current.version })
        if (stored === undefined) return yield* Effect.fail(new NotFound({ resource: "policy", id }))
        if (stored === "stale") {
          return {
            result: { ...base, applied: false },
            refused: new InvalidState({ message: "migration refused: the policy changed while migrating; retry", currentState: `v${current.version}` })
          } satisfies MigrationOutcome
        }
        return { result: { ...base, applied: true, policy: stored.policy } } satisfies MigrationOutcome
      })

    const listForWallet = (caller: CallerInfo, walletId: string, page: PageRequest) =>
      Effect.gen(function* () {
        yield* visibleWallet(caller, walletId)
        return yield* repo.listByWallet(walletId, caller.readTenant, page)
      })

    /** GET /policies: what the caller's tenant holds (every tenant for a key reading all), filtered. */
    const list = (caller: CallerInfo, query: PageRequest & { readonly walletId?: string | undefined; readonly active?: boolean | undefined }) =>
      repo.list(caller.readTenant, query, query)

    /** The most distinct operator approvals an active policy of the wallet asks for at the gate (1 when none does). */
    const approvalsRequiredFor = (walletId: string, tenantId: string) => repo.approvalsRequiredFor(walletId, tenantId)

    return { create, get, update, versions, version, migrate, list, listForWallet, visibleWallet, approvalsRequiredFor }
  })
}) {}
