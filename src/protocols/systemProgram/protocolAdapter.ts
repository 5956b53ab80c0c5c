/** The system-program adapter: SOL transfers and new accounts. */
import { req } from "../intentRequirements.js"
import { SYSTEM_PROGRAM_ID } from "../programIds.js"
import { protocolAdapter } from "../protocolAdapter.js"
import { noSpend, outflowSpend } from "../typeFacts.js"
import { systemProgramBuilders } from "./systemProgramWithChain.js"

export const systemProgramAdapter = protocolAdapter({
  protocol: "system-program",
  capabilities: ["transfer_sol", "create_account"],
  programIds: () => [SYSTEM_PROGRAM_ID],
  builders: systemProgramBuilders,
  facts: {
    transfer_sol: {
      computeUnitBase: 120_000, riskTier: "low", spendLamports: outflowSpend, deltaGuard: { direction: "outflow" },
      intentFields: { destination: req("address"), lamports: req("amount") }
    },
    create_account: {
      computeUnitBase: 120_000, riskTier: "low", spendLamports: noSpend,
      intentFields: { lamports: req("amount"), space: req("integer"), owner: req("address") }
    }
  }
})
