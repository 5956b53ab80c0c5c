/** Risk and chaos tools (spec: Tool interface, Risk). Config fields pass through; the gateway validates them. */
import { Schema } from "effect"
import type { Endpoint } from "../../../schemas/api/endpoint.js"
import { ChaosApi } from "../../../schemas/api/operations.js"
import { RiskApi } from "../../../schemas/api/risk.js"
import { ProtocolName, WalletId } from "../args.js"
import { AnyFields, apiPath, omit, tool } from "../toolDefinition.js"

const read = (name: string, endpoint: Endpoint, description: string) =>
  tool({ name, description, endpoint, args: Schema.Struct({}), readOnly: true, request: () => ({ method: "GET", path: endpoint.path }) })

export const riskTools = [
  read("risk.list_protocols", RiskApi.listProtocols, "Every protocol risk config."),
  tool({
    name: "risk.get_protocol",
    description: "One protocol's risk config.",
    endpoint: RiskApi.getProtocol,
    args: Schema.Struct({ protocol: ProtocolName }),
    readOnly: true,
    request: ({ protocol }) => ({ method: "GET", path: apiPath`/api/v1/risk/protocols/${protocol}` })
  }),
  tool({
    name: "risk.set_protocol",
    description: "Set fields of a protocol's risk config (only the given fields change; created when absent).",
    endpoint: RiskApi.putProtocol,
    args: Schema.Struct({ protocol: ProtocolName }, AnyFields),
    readOnly: false,
    destructive: true,
    idempotent: true,
    request: (args) => ({ method: "PUT", path: apiPath`/api/v1/risk/protocols/${args.protocol}`, body: omit(args, "protocol") })
  }),
  read("risk.list_portfolio", RiskApi.listPortfolio, "Every wallet's portfolio risk controls."),
  tool({
    name: "risk.get_portfolio",
    description: "A wallet's portfolio risk controls.",
    endpoint: RiskApi.getPortfolio,
    args: Schema.Struct({ walletId: WalletId }),
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/risk/portfolio/${walletId}` })
  }),
  tool({
    name: "risk.set_portfolio",
    description: "Set fields of a wallet's portfolio risk controls (only the given fields change).",
    endpoint: RiskApi.putPortfolio,
    args: Schema.Struct({ walletId: WalletId }, AnyFields),
    readOnly: false,
    destructive: true,
    idempotent: true,
    request: (args) => ({ method: "PUT", path: apiPath`/api/v1/risk/portfolio/${args.walletId}`, body: omit(args, "walletId") })
  }),
  read("risk.get_chaos", ChaosApi.get, "The chaos (fault injection) config."),
  tool({
    name: "risk.set_chaos",
    description: "Change the chaos config (enabled, failureRates, latencyMs). Operator act.",
    endpoint: ChaosApi.update,
    args: Schema.Struct({
      enabled: Schema.optional(Schema.Boolean),
      failureRates: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
      latencyMs: Schema.optional(Schema.Unknown)
    }),
    readOnly: false,
    destructive: true,
    idempotent: true,
    request: (args) => ({ method: "PUT", path: "/api/v1/chaos", body: args })
  })
]
