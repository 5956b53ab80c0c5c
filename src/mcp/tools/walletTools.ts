/** Wallet tools (spec: Tool interface, Wallet). */
import { Schema } from "effect"
import { WalletsApi } from "../../../schemas/api/wallets.js"
import { Base64, IdempotencyKeyArg, Limit, Offset, WalletId } from "../args.js"
import { apiPath, tool } from "../toolDefinition.js"

const byWallet = Schema.Struct({ walletId: WalletId })

export const walletTools = [
  tool({
    name: "wallet.create",
    description: "Create a custodied wallet (the key stays in the service). Optional label; autoFund/fundLamports on devnet or the local ledger.",
    endpoint: WalletsApi.create,
    args: Schema.Struct({
      label: Schema.optional(Schema.String),
      autoFund: Schema.optional(Schema.Boolean),
      fundLamports: Schema.optional(Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }))),
      idempotencyKey: Schema.optional(IdempotencyKeyArg)
    }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/wallets", body: args })
  }),
  tool({
    name: "wallet.list",
    description: "List the wallets this key can see, optionally filtered by public key.",
    endpoint: WalletsApi.list,
    args: Schema.Struct({ publicKey: Schema.optional(Schema.String), limit: Schema.optional(Limit), offset: Schema.optional(Offset) }),
    readOnly: true,
    request: (args) => ({ method: "GET", path: "/api/v1/wallets", query: args })
  }),
  tool({
    name: "wallet.get",
    description: "Read one wallet (id, public key, provider, status).",
    endpoint: WalletsApi.get,
    args: byWallet,
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}` })
  }),
  tool({
    name: "wallet.balance",
    description: "A wallet's SOL balance (lamports and sol).",
    endpoint: WalletsApi.balance,
    args: byWallet,
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}/balance` })
  }),
  tool({
    name: "wallet.tokens",
    description: "A wallet's token balances.",
    endpoint: WalletsApi.tokens,
    args: byWallet,
    readOnly: true,
    request: ({ walletId }) => ({ method: "GET", path: apiPath`/api/v1/wallets/${walletId}/tokens` })
  }),
  tool({
    name: "wallet.sign_message",
    description: "Sign a message (base64) in the Solana off-chain message format, if the wallet's policy allows message signing. Refuses bytes that are a transaction.",
    endpoint: WalletsApi.sign,
    args: Schema.Struct({ walletId: WalletId, message: Base64 }),
    readOnly: false,
    destructive: true,
    request: ({ walletId, message }) => ({ method: "POST", path: apiPath`/api/v1/wallets/${walletId}/sign`, body: { message } })
  }),
  tool({
    name: "wallet.sign_transaction",
    description: "Sign a serialized transaction (base64) after simulation and policy: its outflows count against limits and budgets; returns the signature of exactly those bytes. Give an idempotencyKey and reuse it if you call again after an error or a timeout: the first signing is answered, its outflow counted once.",
    endpoint: WalletsApi.sign,
    args: Schema.Struct({ walletId: WalletId, transaction: Base64, idempotencyKey: Schema.optional(IdempotencyKeyArg) }),
    readOnly: false,
    destructive: true,
    request: ({ walletId, transaction, idempotencyKey }) => ({
      method: "POST", path: apiPath`/api/v1/wallets/${walletId}/sign`, body: { transaction, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) }
    })
  })
]
