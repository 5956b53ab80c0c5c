/** The operator console's static files (docs/decisions/console.md): HTML, scripts and styles, no key. */
import { endpoint } from "./endpoint.js"

export const ConsoleApi = {
  index: endpoint("console", "GET", "/console", {
    summary: "The console's page",
    raw: [{ status: 200, description: "The console's HTML", contentTypes: ["text/html; charset=utf-8"] }]
  }),
  file: endpoint("console", "GET", "/console/*", {
    summary: "A file of the console (unknown paths answer the page, for its client-side routes)",
    raw: [{ status: 200, description: "The file, its media type by its extension", contentTypes: ["*/*"] }]
  })
}
