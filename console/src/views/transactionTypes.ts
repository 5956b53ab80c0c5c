/** The spec's 26 transaction types, nft_mint, lend_withdraw / lend_repay and burn_token (for the what-if form; docs/decisions/nft.md, lending.md). */
export const TRANSACTION_TYPES = [
  "transfer_sol", "transfer_spl", "swap", "stake", "unstake", "lend_supply", "lend_borrow", "create_mint", "mint_token",
  "query_balance", "query_positions", "create_escrow", "accept_escrow", "release_escrow", "refund_escrow", "dispute_escrow",
  "resolve_dispute", "create_milestone_escrow", "release_milestone", "x402_pay", "flash_loan_bundle", "cpi_call",
  "custom_instruction_bundle", "treasury_allocate", "treasury_rebalance", "paper_trade", "nft_mint", "lend_withdraw", "lend_repay", "burn_token"
] as const
