/** The spl-token adapter: token transfers, mints, burns and x402 payments (built by their own pipeline stage). */
import { opt, req } from "../intentRequirements.js"
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM } from "../programIds.js"
import { protocolAdapter } from "../protocolAdapter.js"
import { noSpend, positiveAmount } from "../typeFacts.js"
import { splTokenBuilders } from "./splTokenWithChain.js"

export const splTokenAdapter = protocolAdapter({
  protocol: "spl-token",
  // x402_pay is a token payment, built by its own pipeline stage (src/pipeline/x402Stages.ts)
  capabilities: ["transfer_spl", "create_mint", "mint_token", "burn_token", "x402_pay"],
  // create_mint also invokes the System program (createAccount) and transfers may create an ATA
  programIds: () => [TOKEN_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM_ID],
  builders: splTokenBuilders,
  facts: {
    transfer_spl: {
      computeUnitBase: 180_000, riskTier: "low", spendLamports: noSpend, sendsTokens: true,
      intentFields: { destination: req("address"), mint: req("address"), amount: req("amount") }
    },
    create_mint: {
      computeUnitBase: 150_000, riskTier: "low", spendLamports: noSpend, createsMint: true,
      intentFields: { decimals: opt("integer"), freezeAuthority: opt("address") }
    },
    mint_token: {
      computeUnitBase: 180_000, riskTier: "low", spendLamports: noSpend,
      intentFields: { mint: req("address"), amount: req("amount"), destination: opt("address") }
    },
    // like mint_token: one token instruction on the wallet's own account
    burn_token: {
      computeUnitBase: 180_000, riskTier: "low", spendLamports: noSpend,
      intentFields: { mint: req("address"), amount: req("amount") }
    },
    x402_pay: {
      computeUnitBase: 180_000, riskTier: "low", performedBy: "x402Payment",
      // the most the payment may cost, in the asset's base units (docs/decisions/x402.md)
      spendLamports: (intent) => positiveAmount(intent.maxAmount),
      intentFields: {
        url: req("string"), method: opt({ oneOf: ["GET", "POST", "PUT", "PATCH", "DELETE"] }), headers: opt("object"),
        body: opt("string"), maxAmount: req("amount"), asset: opt("address")
      }
    }
  }
})
