/** nft-program builders: the rent of the mint's final size comes from the chain. */
import { Effect, Either } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import type { Builders } from "../adapterRequest.js"
import { buildNftMint, nftMintAccountSize } from "./nftMint.js"

export const nftBuilders: Builders = {
  nft_mint: (request) =>
    Effect.gen(function* () {
      const facts = yield* ChainFacts
      const rentExemptMinimum = yield* facts.rentExemptMinimum(nftMintAccountSize(request.wallet, request.intent))
      return yield* Either.match(buildNftMint({ wallet: request.wallet, intent: request.intent, rentExemptMinimum }), {
        onLeft: Effect.fail,
        onRight: Effect.succeed
      })
    })
}
