/** The liquid-staking adapter: stake SOL for the pool's token, unstake it back. */
import { opt, req } from "../intentRequirements.js"
import { protocolAdapter } from "../protocolAdapter.js"
import { noSpend, outflowSpend, recordedOutflow } from "../typeFacts.js"
import { describeStakingFailure } from "./errors.js"
import { IX_ADD_REWARDS, IX_INIT_POOL, IX_STAKE, IX_UNSTAKE } from "./instructions.js"
import { LIQUID_STAKING_PROGRAM_ID_SETTING } from "./stakingIds.js"
import { stakingBuilders } from "./stakeBuilder.js"

export const liquidStakingAdapter = protocolAdapter({
  protocol: "liquid-staking",
  capabilities: ["stake", "unstake"],
  programIds: (ids) => [ids.liquidStaking],
  ownPrograms: [{
    program: "liquidStaking", setting: LIQUID_STAKING_PROGRAM_ID_SETTING, label: "Liquid staking program", tag: "liquid-staking",
    instructions: { [IX_INIT_POOL]: "initialize_pool", [IX_STAKE]: "stake", [IX_UNSTAKE]: "unstake", [IX_ADD_REWARDS]: "add_rewards" }
  }],
  builders: stakingBuilders,
  describeFailure: (logs, [programId]) => describeStakingFailure(logs, programId),
  facts: {
    stake: {
      computeUnitBase: 240_000, riskTier: "medium", spendLamports: outflowSpend,
      // its outflow also holds a new LST account's rent, recorded at build
      deltaGuard: { direction: "outflow", confirmed: recordedOutflow },
      positions: { indexer: "stakeToken", stakeTokenMint: (facts) => facts.outputMint },
      intentFields: { amount: req("amount"), validator: opt("address") }
    },
    unstake: {
      computeUnitBase: 240_000, riskTier: "medium", spendLamports: noSpend,
      // it pays what its build quoted
      deltaGuard: { direction: "inflow", confirmed: ({ build_facts }) => ({ intent: { lamports: build_facts?.expectedInflowLamports } }) },
      positions: { indexer: "stakeToken", stakeTokenMint: (facts) => facts.tokenMint ?? undefined },
      intentFields: { amount: req("amount") }
    }
  }
})
