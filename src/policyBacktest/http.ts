/** POST /api/v1/policies/backtest (issue 34 item 2): a candidate policy replayed over a wallet's recorded transactions. Scope `policies`. */
import { Effect } from "effect"
import { PoliciesApi } from "../../schemas/api/policies.js"
import { PolicyBacktestBody } from "../../schemas/policyBacktest.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { PolicyBacktests } from "./policyBacktest.js"

export const policyBacktestRoutes = [
  route(
    PoliciesApi.backtest,
    Effect.gen(function* () {
      const body = yield* decodeBody(PolicyBacktestBody)
      return ok(yield* (yield* PolicyBacktests).run(yield* Caller, body))
    })
  )
]
