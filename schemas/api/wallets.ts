/** Wallet endpoints (spec: Endpoints, Wallets). */
import * as Schema from "effect/Schema"
import { Amount, Page, PaginationQuery, Uuid } from "../common.js"
import { CreateWalletBody, SignBody, TokenBalance, Wallet, WalletBalance, WalletListQuery } from "../wallet.js"
import { endpoint } from "./endpoint.js"

/** How an auto-funded wallet was funded (absent without autoFund). */
export const WalletFunding = Schema.Struct({
  ok: Schema.Boolean,
  lamports: Amount,
  signature: Schema.optional(Schema.String),
  method: Schema.Literal("airdrop", "payer-transfer"),
  error: Schema.optional(Schema.String)
})

/** Named, so the document lists it once as a component. */
const WalletResource = Wallet.annotations({ identifier: "Wallet" })

export const CreatedWallet = Schema.Struct({ ...Wallet.fields, funding: Schema.optional(WalletFunding) }).annotations({ identifier: "CreatedWallet" })

export const WalletIdParams = Schema.Struct({ walletId: Uuid })

export const WalletsApi = {
  create: endpoint("wallets", "POST", "/api/v1/wallets", {
    summary: "Create a wallet (optionally funded on the local ledger; 200 for a create repeated with its idempotencyKey)",
    body: CreateWalletBody,
    success: CreatedWallet,
    successStatuses: [201, 200]
  }),
  list: endpoint("wallets", "GET", "/api/v1/wallets", {
    summary: "List wallets, newest first",
    query: Schema.extend(PaginationQuery, WalletListQuery),
    success: Page("wallets", WalletResource)
  }),
  get: endpoint("wallets", "GET", "/api/v1/wallets/:walletId", { summary: "A wallet", params: WalletIdParams, success: WalletResource }),
  balance: endpoint("wallets", "GET", "/api/v1/wallets/:walletId/balance", {
    summary: "The wallet's SOL balance",
    params: WalletIdParams,
    success: WalletBalance
  }),
  tokens: endpoint("wallets", "GET", "/api/v1/wallets/:walletId/tokens", {
    summary: "The wallet's token balances",
    params: WalletIdParams,
    success: Schema.Struct({ tokens: Schema.Array(TokenBalance) })
  }),
  sign: endpoint("wallets", "POST", "/api/v1/wallets/:walletId/sign", {
    summary: "Sign a serialized transaction or a message with the wallet's key, under its policy",
    params: WalletIdParams,
    body: SignBody,
    successStatuses: [200, 202]
  })
}
