/** The swap adapters: the aggregator routes over both AMMs; each AMM also swaps on its own. */
import { opt, req, type IntentFields } from "../intentRequirements.js"
import { type OwnProgram, protocolAdapter } from "../protocolAdapter.js"
import { noSpend } from "../typeFacts.js"
import { AMM_PROGRAM_ID_SETTINGS } from "./ammIds.js"
import { IX_ADD_LIQUIDITY, IX_INIT_POOL, IX_REMOVE_LIQUIDITY, IX_SWAP } from "./instructions.js"
import { describeAmmFailure } from "./simulationError.js"
import { swapBuilders } from "./swapBuilder.js"

const ammInstructions = { [IX_INIT_POOL]: "initialize_pool", [IX_ADD_LIQUIDITY]: "add_liquidity", [IX_SWAP]: "swap", [IX_REMOVE_LIQUIDITY]: "remove_liquidity" }
const ammOne: OwnProgram = { program: "ammOne", setting: AMM_PROGRAM_ID_SETTINGS["amm-one"], label: "AMM (amm-one)", tag: "amm-one", instructions: ammInstructions }
const ammTwo: OwnProgram = { program: "ammTwo", setting: AMM_PROGRAM_ID_SETTINGS["amm-two"], label: "AMM (amm-two)", tag: "amm-two", instructions: ammInstructions }

const swapFields: IntentFields = {
  inputMint: req("address"),
  outputMint: req("address"),
  amount: req("amount"),
  maxSlippageBps: req("bps"),
  minimumOut: opt("amount")
}

export const dexAggregatorAdapter = protocolAdapter({
  protocol: "dex-aggregator",
  capabilities: ["swap", "quote"],
  programIds: (ids) => [ids.ammOne, ids.ammTwo],
  ownPrograms: [ammOne, ammTwo],
  builders: swapBuilders,
  // either AMM's refusal, whichever the route traded in
  describeFailure: describeAmmFailure,
  facts: {
    swap: {
      computeUnitBase: 380_000, riskTier: "medium", spendLamports: noSpend, swapsAtQuote: true,
      // its SOL outflow is what the build recorded (SOL sold, new account rent), checked like a transfer;
      // buying SOL is not a fixed amount: no check
      deltaGuard: {
        confirmed: ({ build_facts }) =>
          (build_facts?.amountLamports ?? null) === null ? { intent: {} } : { direction: "outflow", intent: { lamports: build_facts?.amountLamports } }
      },
      intentFields: swapFields
    },
    // never submitted: the compute floor
    quote: { computeUnitBase: 100_000, riskTier: "low", spendLamports: noSpend, intentFields: swapFields }
  }
})

export const ammOneAdapter = protocolAdapter({
  protocol: "amm-one", capabilities: ["swap"], programIds: (ids) => [ids.ammOne], ownPrograms: [ammOne], builders: swapBuilders, facts: {}
})

export const ammTwoAdapter = protocolAdapter({
  protocol: "amm-two", capabilities: ["swap"], programIds: (ids) => [ids.ammTwo], ownPrograms: [ammTwo], builders: swapBuilders, facts: {}
})
