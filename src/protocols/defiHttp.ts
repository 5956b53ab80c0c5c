/**
 * DeFi helper routes (spec: Protocols and DeFi helpers; [n13]). Swaps live in amm/http.ts, stake and unstake in
 * staking/http.ts, lend supply and borrow in lending/http.ts.
 */
import { lendingRoutes } from "./lending/http.js"
import { stakingRoutes } from "./staking/http.js"

export const defiRoutes = [...stakingRoutes, ...lendingRoutes]
