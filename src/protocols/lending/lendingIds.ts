/** Where the lending-market program (programs/lending-market) lives on the local ledger, and its setting. */
export const LOCAL_LENDING_MARKET_PROGRAM_ID = "LendMkt111111111111111111111111111111111111"
export const LENDING_MARKET_PROGRAM_ID_SETTING = "LENDING_MARKET_PROGRAM_ID"
