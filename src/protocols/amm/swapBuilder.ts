/** amm-one / amm-two swap builders (filled in with the AMM program). */
import type { Builders } from "../adapterRequest.js"

export const ammBuilders: Builders = {}
