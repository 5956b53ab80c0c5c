/**
 * Treasury intents (treasury_allocate, treasury_rebalance) change agents' budgets, which is an
 * operator's act: whichever path creates one (POST /transactions, an agent's execute, the runtime),
 * the caller needs what POST /api/v1/treasury/* needs: the `treasury` scope and an operator credential.
 */
import { Forbidden, InsufficientScope } from "../../schemas/errors.js"
import { hasScope } from "../gateway/apiKeys.js"
import { actingAgent, type CallerInfo } from "../gateway/caller.js"
import { typesWhere } from "../protocols/registry.js"

export const TREASURY_TYPES: ReadonlySet<string> = new Set(typesWhere((facts) => facts.changesBudgets === true))

/** The refusal of a treasury intent for this caller, or undefined (also for any other type). */
export const treasuryRefusal = (caller: CallerInfo, type: string): Forbidden | InsufficientScope | undefined => {
  if (!TREASURY_TYPES.has(type)) return undefined
  const agent = actingAgent(caller)
  if (agent !== null) {
    return new Forbidden({ message: `Operator credential required: ${type} changes agent budgets; this key acts as agent ${agent}` })
  }
  if (!hasScope(caller, "treasury")) return new InsufficientScope({ requiredScope: "treasury" })
  return undefined
}
