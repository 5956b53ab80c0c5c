/**
 * The 26 transaction types of the spec, plus `nft_mint` which the spec shows as an
 * nft-program operation outside the type list. Kept here (not in schemas/) so the pure
 * pipeline and adapter code can key tables by type; schemas/ should list the same strings.
 */
export const TRANSACTION_TYPES = [
  "transfer_sol",
  "transfer_spl",
  "swap",
  "stake",
  "unstake",
  "lend_supply",
  "lend_borrow",
  "create_mint",
  "mint_token",
  "query_balance",
  "query_positions",
  "create_escrow",
  "accept_escrow",
  "release_escrow",
  "refund_escrow",
  "dispute_escrow",
  "resolve_dispute",
  "create_milestone_escrow",
  "release_milestone",
  "x402_pay",
  "flash_loan_bundle",
  "cpi_call",
  "custom_instruction_bundle",
  "treasury_allocate",
  "treasury_rebalance",
  "paper_trade"
] as const

export type TransactionType = (typeof TRANSACTION_TYPES)[number]

/** Operations an adapter can build or answer: every transaction type plus adapter-only ones. */
export type AdapterOperation = TransactionType | "nft_mint" | "create_account" | "quote"

export const READ_ONLY_TYPES: ReadonlySet<TransactionType> = new Set(["query_balance", "query_positions"])

export const isTransactionType = (value: unknown): value is TransactionType =>
  typeof value === "string" && (TRANSACTION_TYPES as ReadonlyArray<string>).includes(value)
