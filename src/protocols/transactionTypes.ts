import { TRANSACTION_TYPES, type TransactionType } from "../../schemas/intent.js"

/** The 26 transaction types come from the contract (schemas/intent.ts); one list for everyone. */
export { TRANSACTION_TYPES, type TransactionType }

/** Operations an adapter can build or answer: every transaction type plus adapter-only ones. */
export type AdapterOperation = TransactionType | "nft_mint" | "create_account" | "quote"

export const isTransactionType = (value: unknown): value is TransactionType =>
  typeof value === "string" && (TRANSACTION_TYPES as ReadonlyArray<string>).includes(value)
