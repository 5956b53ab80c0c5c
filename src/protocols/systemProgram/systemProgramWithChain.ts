/** system-program builders with the chain facts they need (the destination account, rent minimum). */
import { PublicKey } from "@solana/web3.js"
import { Effect, Either } from "effect"
import { ChainFacts } from "../../chain/chainFacts.js"
import type { Builders } from "../adapterRequest.js"
import { buildTransferSol } from "./systemProgram.js"

export const systemProgramBuilders: Builders = {
  transfer_sol: (request) =>
    Effect.gen(function* () {
      const facts = yield* ChainFacts
      const [account] = yield* facts.accounts([new PublicKey(request.intent.destination).toBase58()])
      const rentExemptMinimum = yield* facts.rentExemptMinimum(account === null ? 0 : account.data.length)
      const built = buildTransferSol({
        wallet: request.wallet,
        intent: request.intent,
        chain: { destinationExists: account !== null, destinationLamports: account?.lamports ?? 0n, rentExemptMinimum }
      })
      return yield* Either.match(built, { onLeft: Effect.fail, onRight: Effect.succeed })
    })
}
