/**
 * Protocol, DeFi and escrow tools (spec: Tool interface, Protocol; plus version, compatibility check
 * and intent migration, which the gateway also serves). `walletAddress` is the wallet's public key;
 * the escrow helpers also need `walletId`, the custodied wallet that signs ([n14]).
 */
import { Schema } from "effect"
import { DefiApi } from "../../../schemas/api/defi.js"
import type { Endpoint } from "../../../schemas/api/endpoint.js"
import { EscrowApi } from "../../../schemas/api/escrow.js"
import { EscrowByCreatorHelperBody, EscrowReleaseHelperBody, EscrowResolveHelperBody } from "../../../schemas/api/escrowBodies.js"
import { LendingApi } from "../../../schemas/api/lending.js"
import { ProtocolsApi } from "../../../schemas/api/protocols.js"
import { Amount, Base58Address, Intent, ProtocolName, TransactionType, WalletId } from "../args.js"
import { apiPath, omit, tool } from "../toolDefinition.js"

const byProtocol = Schema.Struct({ protocol: ProtocolName })
const WalletAddress = Base58Address.annotations({ description: "the wallet's public key (base58)" })
const EscrowId = Schema.String.pipe(Schema.pattern(/^[0-9]{1,20}$/, { message: () => "must be a numeric escrow id" })).annotations({ description: "the numeric escrow id" })

const protocolRead = (name: string, suffix: string, endpoint: Endpoint, description: string) =>
  tool({
    name,
    description,
    endpoint,
    args: byProtocol,
    readOnly: true,
    request: ({ protocol }) => ({ method: "GET", path: apiPath`/api/v1/protocols/${protocol}` + suffix })
  })

const swapTool = (name: string, action: "quote" | "swap", description: string, readOnly: boolean) =>
  tool({
    name,
    description,
    endpoint: DefiApi[action],
    args: Schema.Struct({
      protocol: ProtocolName,
      inputMint: Base58Address,
      outputMint: Base58Address,
      amount: Amount,
      walletAddress: WalletAddress,
      slippageBps: Schema.optional(Schema.Number)
    }),
    readOnly,
    request: ({ walletAddress, ...rest }) => ({ method: "POST", path: "/api/v1/defi/" + action, body: { ...rest, wallet: walletAddress } })
  })

const stakeTool = (name: string, action: "stake" | "unstake", description: string) =>
  tool({
    name,
    description,
    endpoint: DefiApi[action],
    args: Schema.Struct({ protocol: ProtocolName, walletAddress: WalletAddress, amount: Amount, validator: Schema.optional(Base58Address) }),
    // A preview: the unsigned transaction and the request that executes it; nothing is signed or stored.
    readOnly: true,
    request: ({ walletAddress, ...rest }) => ({ method: "POST", path: "/api/v1/defi/" + action, body: { ...rest, wallet: walletAddress } })
  })

const lendTool = (name: string, action: keyof typeof LendingApi, description: string) =>
  tool({
    name,
    description,
    endpoint: LendingApi[action],
    args: Schema.Struct({ protocol: ProtocolName, walletAddress: WalletAddress, mint: Base58Address, amount: Amount }),
    // A preview, as stake: nothing is signed or stored.
    readOnly: true,
    request: ({ walletAddress, ...rest }) => ({ method: "POST", path: "/api/v1/defi/lend/" + action, body: { ...rest, wallet: walletAddress } })
  })

/**
 * accept, release, refund, dispute, resolve: the escrow id in the path, the helper's body fields as they are
 * (the same required arguments as the route: schemas/api/escrowBodies.ts).
 */
const escrowAction = <A extends { readonly escrowId: string }, I>(
  action: "accept" | "release" | "refund" | "dispute" | "resolve",
  args: Schema.Schema<A, I, never>,
  fields: string
) =>
  tool({
    name: `protocol.escrow_${action}`,
    description: `${action[0]!.toUpperCase()}${action.slice(1)} escrow <escrowId> as the custodied wallet walletId (${fields}); runs through the pipeline with policy.`,
    endpoint: EscrowApi[action],
    args,
    readOnly: false,
    destructive: true,
    request: ({ escrowId, ...body }) => ({ method: "POST", path: apiPath`/api/v1/escrow/${escrowId}/` + action, body })
  })

const withEscrowId = <F extends Schema.Struct.Fields>(body: Schema.Struct<F>) => Schema.Struct({ ...body.fields, escrowId: EscrowId })

export const protocolTools = [
  tool({
    name: "protocol.list",
    description: "The protocol adapters: protocol, version, capabilities, program ids.",
    endpoint: ProtocolsApi.list,
    args: Schema.Struct({}),
    readOnly: true,
    request: () => ({ method: "GET", path: "/api/v1/protocols" })
  }),
  tool({
    name: "protocol.health_all",
    description: "Health of every protocol adapter.",
    endpoint: ProtocolsApi.health,
    args: Schema.Struct({}),
    readOnly: true,
    request: () => ({ method: "GET", path: "/api/v1/protocols/health" })
  }),
  protocolRead("protocol.capabilities", "/capabilities", ProtocolsApi.capabilities, "One protocol adapter's capabilities."),
  protocolRead("protocol.health", "/health", ProtocolsApi.protocolHealth, "One protocol adapter's health."),
  protocolRead("protocol.version", "/version", ProtocolsApi.version, "One protocol adapter's version."),
  tool({
    name: "protocol.compatibility_check",
    description: "Check whether an intent of a type is supported by a protocol adapter.",
    endpoint: ProtocolsApi.compatibilityCheck,
    args: Schema.Struct({ protocol: ProtocolName, type: TransactionType, intent: Schema.optional(Intent) }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/protocols/${args.protocol}/compatibility-check`, body: omit(args, "protocol") })
  }),
  tool({
    name: "protocol.migrate_intent",
    description: "Migrate an intent to a target adapter version (e.g. renamed fields).",
    endpoint: ProtocolsApi.migrateIntent,
    args: Schema.Struct({ protocol: ProtocolName, intent: Intent, targetVersion: Schema.String }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/protocols/${args.protocol}/migrate-intent`, body: omit(args, "protocol") })
  }),
  swapTool("protocol.quote", "quote", "A swap quote over live pools (no transaction).", true),
  swapTool("protocol.swap", "swap", "Preview a swap: the route, the unsigned transaction and the tx.create request that executes it (nothing is signed).", true),
  stakeTool("protocol.stake", "stake", "Preview a stake: the LST it would mint, the unsigned transaction and the tx.create request that executes it."),
  stakeTool("protocol.unstake", "unstake", "Preview an unstake: the lamports it would return after the fee, the unsigned transaction and the tx.create request that executes it."),
  lendTool("protocol.lend_supply", "supply", "Preview a lending supply and the tx.create request that executes it."),
  lendTool("protocol.lend_borrow", "borrow", "Preview a lending borrow and the tx.create request that executes it."),
  lendTool("protocol.lend_withdraw", "withdraw", "Preview a withdrawal of supplied tokens (at most amount; at or above the supply's worth withdraws it all)."),
  lendTool("protocol.lend_repay", "repay", "Preview a repayment of a borrow (at most the debt with interest; above it pays exactly the debt)."),
  tool({
    name: "protocol.escrow_create",
    description: "Create an escrow (intent as create_escrow: escrowNumericId, counterparty, creator, arbiter, feeRecipient, amount, deadlineUnixSec) signed by the custodied wallet walletId.",
    endpoint: EscrowApi.create,
    args: Schema.Struct({ walletAddress: WalletAddress, walletId: WalletId, intent: Intent }),
    readOnly: false,
    destructive: true,
    request: ({ walletAddress, walletId, intent }) => ({ method: "POST", path: "/api/v1/escrow/create", body: { ...intent, walletId, wallet: walletAddress } })
  }),
  escrowAction("accept", withEscrowId(EscrowByCreatorHelperBody), "creator"),
  escrowAction("release", withEscrowId(EscrowReleaseHelperBody), "creator, counterparty, feeRecipient"),
  escrowAction("refund", withEscrowId(EscrowByCreatorHelperBody), "creator"),
  escrowAction("dispute", withEscrowId(EscrowByCreatorHelperBody), "creator"),
  escrowAction("resolve", withEscrowId(EscrowResolveHelperBody), "creator, winnerIsCreator, counterparty?")
]
