/**
 * The facts of the types no protocol builds: reads answered by the service (query_balance, query_positions),
 * treasury bookkeeping and paper trades. None spends from its wallet; reads and paper trades are never
 * submitted, so their compute base is the floor.
 */
import { noSpend, type TypeFacts } from "./typeFacts.js"

export const serviceTypeFacts = {
  query_balance: { computeUnitBase: 100_000, riskTier: "low", spendLamports: noSpend, performedBy: "balanceRead" },
  query_positions: { computeUnitBase: 100_000, riskTier: "low", spendLamports: noSpend, performedBy: "positionsRead" },
  treasury_allocate: { computeUnitBase: 120_000, riskTier: "low", spendLamports: noSpend, performedBy: "offChain", changesBudgets: true },
  treasury_rebalance: { computeUnitBase: 200_000, riskTier: "low", spendLamports: noSpend, performedBy: "offChain", changesBudgets: true },
  paper_trade: { computeUnitBase: 100_000, riskTier: "low", spendLamports: noSpend, performedBy: "offChain" }
} as const satisfies Readonly<Record<string, TypeFacts>>
