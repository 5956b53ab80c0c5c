/** GET /api/v1/openapi.json: this contract as an OpenAPI 3.1 document (no key needed). */
import * as Schema from "effect/Schema"
import { endpoint } from "./endpoint.js"

export const OpenApiApi = {
  document: endpoint("contract", "GET", "/api/v1/openapi.json", {
    summary: "This OpenAPI 3.1 document (the document itself, not in the envelope; no key needed)",
    success: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
}
