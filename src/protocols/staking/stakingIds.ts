/** Where the liquid-staking program (programs/liquid-staking) lives on the local ledger, and its setting. */
export const LOCAL_LIQUID_STAKING_PROGRAM_ID = "LiqStake11111111111111111111111111111111111"
export const LIQUID_STAKING_PROGRAM_ID_SETTING = "LIQUID_STAKING_PROGRAM_ID"
