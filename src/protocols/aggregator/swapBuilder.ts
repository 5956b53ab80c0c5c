/** dex-aggregator swap builder (filled in with the router). */
import type { Builders } from "../adapterRequest.js"

export const aggregatorBuilders: Builders = {}
