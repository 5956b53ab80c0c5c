/**
 * DeFi helper routes (spec: Protocols and DeFi helpers; [n13]). Swaps live in amm/http.ts, stake and unstake in
 * staking/http.ts. No adapter for the lending protocol exists yet, so its helpers answer the spec's envelope for a build failure
 * (500, PIPELINE_ERROR, failedAt `build`) naming the protocol, after validating its body (a bad body
 * is still a 400 naming the field) — never a routing 404, so a client learns what is missing.
 */
import { Effect, type Schema } from "effect"
import { PipelineError } from "../../schemas/errors.js"
import { LendBody } from "../../schemas/protocol.js"
import { decodeBody } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { stakingRoutes } from "./staking/http.js"

const noAdapterYet = <A extends { readonly protocol: string }, I>(operation: string, body: Schema.Schema<A, I, never>) =>
  Effect.gen(function* () {
    const { protocol } = yield* decodeBody(body)
    return yield* new PipelineError({ stage: "build", message: `no adapter for ${protocol} ${operation} yet: this deployment cannot build it` })
  })

export const defiRoutes = [
  ...stakingRoutes,
  route("POST", "/api/v1/defi/lend/supply", noAdapterYet("lend_supply", LendBody)),
  route("POST", "/api/v1/defi/lend/borrow", noAdapterYet("lend_borrow", LendBody))
]
