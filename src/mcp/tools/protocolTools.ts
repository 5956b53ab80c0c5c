/**
 * Protocol, DeFi and escrow tools (spec: Tool interface, Protocol; plus version, compatibility check
 * and intent migration, which the gateway also serves). `walletAddress` is the wallet's public key;
 * the escrow helpers also need `walletId`, the custodied wallet that signs ([n14]).
 */
import { Schema } from "effect"
import { Amount, Base58Address, Intent, ProtocolName, TransactionType, WalletId } from "../args.js"
import { AnyFields, apiPath, omit, tool } from "../toolDefinition.js"

const byProtocol = Schema.Struct({ protocol: ProtocolName })
const WalletAddress = Base58Address.annotations({ description: "the wallet's public key (base58)" })

const protocolRead = (name: string, suffix: string, description: string) =>
  tool({
    name,
    description,
    args: byProtocol,
    readOnly: true,
    request: ({ protocol }) => ({ method: "GET", path: apiPath`/api/v1/protocols/${protocol}` + suffix })
  })

const swapTool = (name: string, action: string, description: string, readOnly: boolean) =>
  tool({
    name,
    description,
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

const stakeTool = (name: string, action: string, description: string) =>
  tool({
    name,
    description,
    args: Schema.Struct({ protocol: ProtocolName, walletAddress: WalletAddress, amount: Amount, validator: Schema.optional(Base58Address) }),
    readOnly: false,
    request: ({ walletAddress, ...rest }) => ({ method: "POST", path: "/api/v1/defi/" + action, body: { ...rest, wallet: walletAddress } })
  })

const lendTool = (name: string, action: string, description: string) =>
  tool({
    name,
    description,
    args: Schema.Struct({ protocol: ProtocolName, walletAddress: WalletAddress, mint: Base58Address, amount: Amount }),
    readOnly: false,
    request: ({ walletAddress, ...rest }) => ({ method: "POST", path: "/api/v1/defi/lend/" + action, body: { ...rest, wallet: walletAddress } })
  })

/** accept, release, refund, dispute, resolve: the escrow id in the path, the helper's fields in the body. */
const escrowAction = (action: string, fields: string) =>
  tool({
    name: `protocol.escrow_${action}`,
    description: `${action[0]!.toUpperCase()}${action.slice(1)} escrow <escrowId> as the custodied wallet walletId (body fields: ${fields}); runs through the pipeline with policy.`,
    args: Schema.Struct({ escrowId: Schema.String.pipe(Schema.pattern(/^[0-9]{1,20}$/, { message: () => "must be a numeric escrow id" })), walletAddress: WalletAddress, walletId: WalletId }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({
      method: "POST",
      path: apiPath`/api/v1/escrow/${args.escrowId}/` + action,
      body: { ...omit(args, "escrowId", "walletAddress"), wallet: args.walletAddress }
    })
  })

export const protocolTools = [
  tool({
    name: "protocol.list",
    description: "The protocol adapters: protocol, version, capabilities, program ids.",
    args: Schema.Struct({}),
    readOnly: true,
    request: () => ({ method: "GET", path: "/api/v1/protocols" })
  }),
  tool({
    name: "protocol.health_all",
    description: "Health of every protocol adapter.",
    args: Schema.Struct({}),
    readOnly: true,
    request: () => ({ method: "GET", path: "/api/v1/protocols/health" })
  }),
  protocolRead("protocol.capabilities", "/capabilities", "One protocol adapter's capabilities."),
  protocolRead("protocol.health", "/health", "One protocol adapter's health."),
  protocolRead("protocol.version", "/version", "One protocol adapter's version."),
  tool({
    name: "protocol.compatibility_check",
    description: "Check whether an intent of a type is supported by a protocol adapter.",
    args: Schema.Struct({ protocol: ProtocolName, type: TransactionType, intent: Intent }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/protocols/${args.protocol}/compatibility-check`, body: omit(args, "protocol") })
  }),
  tool({
    name: "protocol.migrate_intent",
    description: "Migrate an intent to a target adapter version (e.g. renamed fields).",
    args: Schema.Struct({ protocol: ProtocolName, intent: Intent, targetVersion: Schema.String }),
    readOnly: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/protocols/${args.protocol}/migrate-intent`, body: omit(args, "protocol") })
  }),
  swapTool("protocol.quote", "quote", "A swap quote (no transaction).", true),
  swapTool("protocol.swap", "swap", "Build a swap.", false),
  stakeTool("protocol.stake", "stake", "Build a stake."),
  stakeTool("protocol.unstake", "unstake", "Build an unstake."),
  lendTool("protocol.lend_supply", "supply", "Build a lending supply."),
  lendTool("protocol.lend_borrow", "borrow", "Build a lending borrow."),
  lendTool("protocol.lend_withdraw", "withdraw", "Build a withdrawal of supplied tokens (at most amount; at or above the supply's worth withdraws it all)."),
  lendTool("protocol.lend_repay", "repay", "Build a repayment of a borrow (at most the debt with interest; above it pays exactly the debt)."),
  tool({
    name: "protocol.escrow_create",
    description: "Create an escrow (intent as create_escrow: escrowNumericId, counterparty, creator, arbiter, feeRecipient, amount, deadlineUnixSec) signed by the custodied wallet walletId.",
    args: Schema.Struct({ walletAddress: WalletAddress, walletId: WalletId, intent: Intent }),
    readOnly: false,
    destructive: true,
    request: ({ walletAddress, walletId, intent }) => ({ method: "POST", path: "/api/v1/escrow/create", body: { ...intent, walletId, wallet: walletAddress } })
  }),
  escrowAction("accept", "creator"),
  escrowAction("release", "creator, counterparty, feeRecipient"),
  escrowAction("refund", "creator"),
  escrowAction("dispute", "creator"),
  escrowAction("resolve", "creator, winnerIsCreator, counterparty?")
]
