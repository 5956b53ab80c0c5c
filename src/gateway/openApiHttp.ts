/**
 * GET /api/v1/openapi.json: the OpenAPI 3.1 document of every route, this one included. It is served as
 * the document itself, not inside the envelope, so OpenAPI tools read it by URL; no key is needed, like
 * /health (docs/decisions/api-contract.md).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { OpenApiApi } from "../../schemas/api/openApi.js"
import { openApiDocument } from "./openApi.js"
import { type Route, route } from "./route.js"

export const OPENAPI_PATH = OpenApiApi.document.path

export const openApiRoutes = (routes: ReadonlyArray<Route<unknown>>) => {
  let text: string | undefined
  const self: Route<never> = route(
    OpenApiApi.document,
    Effect.sync(() => {
      // Built on first request: every route is known by then, and the document never changes while running.
      text ??= JSON.stringify(openApiDocument([...routes, self], { title: "Agent custody and execution service", version: "1.0.0" }))
      return HttpServerResponse.text(text, { contentType: "application/json" })
    })
  )
  return [self]
}
