/** The nft-program adapter: nft_mint is a Token-2022 mint with its metadata extension (docs/decisions/nft.md). */
import { req } from "../intentRequirements.js"
import { protocolAdapter } from "../protocolAdapter.js"
import { noSpend } from "../typeFacts.js"
import { nftBuilders } from "./builders.js"
import { NFT_PROGRAM_IDS } from "./nftProgramIds.js"

export const nftProgramAdapter = protocolAdapter({
  protocol: "nft-program",
  capabilities: ["nft_mint"],
  programIds: () => NFT_PROGRAM_IDS,
  builders: nftBuilders,
  facts: {
    nft_mint: {
      computeUnitBase: 400_000, riskTier: "low", spendLamports: noSpend, createsMint: true,
      intentFields: { name: req("string"), symbol: req("string"), uri: req("string"), sellerFeeBasisPoints: req("bps"), creators: req("array") }
    }
  }
})
