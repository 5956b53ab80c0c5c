/**
 * Kill switch tools (issue 34 item 3): freeze a tenant, a wallet or an agent, list freezes, lift one. They
 * call the gateway with the caller's key, whose routes admit operator keys only (an agent's key is refused).
 */
import { Schema } from "effect"
import { FreezeCreate, FreezeLift } from "../../../schemas/freeze.js"
import { RiskApi } from "../../../schemas/api/risk.js"
import { apiPath, omit, tool } from "../toolDefinition.js"

export const freezeTools = [
  tool({
    name: "risk.freeze",
    description:
      "Kill switch: freeze a tenant, a wallet or an agent (scope, targetId, reason). From the moment it commits nothing of it is signed, " +
      "transactions waiting for approval fail, running agents pause and new requests are refused naming the freeze. Operator keys only.",
    endpoint: RiskApi.freeze,
    args: Schema.Struct(FreezeCreate.fields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: "/api/v1/risk/freezes", body: args })
  }),
  tool({
    name: "risk.list_freezes",
    description: "Freezes of the tenant, newest first (state: active, the default, or all).",
    endpoint: RiskApi.listFreezes,
    args: Schema.Struct({ state: Schema.optional(Schema.Literal("active", "all")) }),
    readOnly: true,
    request: (args) => ({ method: "GET", path: "/api/v1/risk/freezes", query: { state: args.state } })
  }),
  tool({
    name: "risk.lift_freeze",
    description: "Lift a freeze (an operator act): its scope may sign again. Paused agents stay paused until resumed.",
    endpoint: RiskApi.liftFreeze,
    args: Schema.Struct({ freezeId: Schema.UUID, ...FreezeLift.fields }),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/risk/freezes/${args.freezeId}/lift`, body: omit(args, "freezeId") })
  })
]
