/**
 * What a caller may issue (docs/decisions/access.md "Issued keys"): a key never grants more than its issuer
 * holds. A tenant-bound issuer issues keys of its own tenant only; a key of tenant `*` needs an issuer that
 * reads every tenant; every scope granted must be one the issuer holds (or the issuer holds `all`). A key
 * bound to an agent names that agent's tenant, never `*`; an expiry must be in the future. Pure: whether
 * the agent exists is the service's question.
 */
import { Either } from "effect"
import type { ApiScope } from "../../schemas/apiKey.js"
import { Forbidden, ValidationError } from "../../schemas/errors.js"
import type { CallerInfo } from "../gateway/caller.js"

export interface KeyRequest {
  readonly tenant?: string | undefined
  readonly scopes: ReadonlyArray<ApiScope>
  readonly agentId?: string | undefined
  readonly expiresAt?: string | undefined
  readonly label?: string | undefined
}

export interface KeyGrant {
  readonly tenant: string
  readonly scopes: ReadonlyArray<ApiScope>
  readonly agentId: string | null
  readonly expiresAt: Date | null
  readonly label: string | null
}

const invalid = (field: string, problem: string) => Either.left(new ValidationError({ message: `${field}: ${problem}`, field }))
const forbidden = (message: string) => Either.left(new Forbidden({ message }))

export const checkGrant = (caller: CallerInfo, request: KeyRequest, now: number): Either.Either<KeyGrant, ValidationError | Forbidden> => {
  const tenant = request.tenant ?? caller.readTenant ?? undefined
  if (tenant === undefined) {
    return invalid("tenant", "required: this key reads every tenant, so name the new key's tenant (or * for every tenant)")
  }
  if (request.agentId !== undefined && tenant === "*") {
    return invalid("agentId", "a key bound to an agent must name the agent's tenant, not *")
  }
  const expiresAt = request.expiresAt === undefined ? null : new Date(request.expiresAt)
  if (expiresAt !== null && expiresAt.getTime() <= now) return invalid("expiresAt", "must be in the future")
  if (caller.readTenant !== null && tenant !== caller.readTenant) {
    return forbidden(`tenant: this key acts for tenant '${caller.readTenant}' and may issue keys of that tenant only`)
  }
  const scopes = [...new Set(request.scopes)]
  const ungrantable = caller.scopes.has("all") ? undefined : scopes.find((scope) => !caller.scopes.has(scope))
  if (ungrantable !== undefined) return forbidden(`scopes: this key does not hold the '${ungrantable}' scope, so it cannot grant it`)
  return Either.right({ tenant, scopes, agentId: request.agentId ?? null, expiresAt, label: request.label ?? null })
}
