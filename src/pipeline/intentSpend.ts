/**
 * The lamports an intent spends from its wallet, which is what an agent's budget counts: its type's reading
 * (src/protocols/typeFacts.ts). Only SOL outflows count: token amounts are not lamports; read-only and
 * bookkeeping intents (treasury, paper trades) move nothing on chain.
 */
import type { TransactionType } from "../../schemas/intent.js"
import { TYPE_FACTS } from "../protocols/registry.js"

export const intentSpendLamports = (type: TransactionType, intent: Readonly<Record<string, unknown>>): bigint =>
  TYPE_FACTS[type].spendLamports(intent)
