/**
 * The escrow helpers' routes (spec: Escrow helpers): the escrow adapter turns each helper body into a
 * transaction request (protocols/escrow/http.ts), and the pipeline creates that transaction and
 * answers like POST /transactions. Mounted here so the adapter never imports the pipeline.
 */
import { Effect } from "effect"
import { route } from "../gateway/route.js"
import { escrowHelpers } from "../protocols/escrow/http.js"
import { decodeTransactionRequest } from "./acceptIntent.js"
import { createAndReply } from "./http.js"

// The helper body is decoded first; the signer check and the request's decoding run inside the create.
export const escrowHelperRoutes = escrowHelpers.map(([endpoint, helper]) =>
  route(endpoint, Effect.flatMap(helper, ({ checkSigner, request }) => createAndReply(Effect.zipRight(checkSigner, decodeTransactionRequest(request)))))
)
