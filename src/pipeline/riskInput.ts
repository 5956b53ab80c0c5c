/**
 * What the policy engine is asked about a built transaction: its row, the build's facts (destination,
 * amounts, programs, a swap's pools, quote age and oracle facts) and its simulated whole effect (issue 31,
 * effectFacts.ts), at the policy stage and again before an approved transaction is signed.
 */
import type { TransactionEffect } from "../../schemas/effect.js"
import type { TransactionRiskInput } from "../policy/policyEngine.js"
import { spendFacts } from "./effectFacts.js"
import type { BuildFactsRow, TransactionRow } from "./transactionRow.js"

const lamportsOf = (text: string | null | undefined) => (text === null || text === undefined ? undefined : BigInt(text))

export const riskInputOf = (
  row: TransactionRow,
  built: BuildFactsRow | null | undefined,
  preBalanceLamports: bigint,
  effect: TransactionEffect | undefined,
  now = new Date()
): TransactionRiskInput => {
  const spend = spendFacts(row.type, { amountLamports: lamportsOf(built?.amountLamports), destination: built?.destination ?? undefined }, effect)
  return {
    txId: row.id, tenantId: row.tenant_id, walletId: row.wallet_id, agentId: row.agent_id, traceId: row.trace_id ?? undefined,
    type: row.type, protocol: row.protocol, intent: row.intent,
    facts: {
      destination: spend.destination,
      tokenMint: built?.tokenMint ?? undefined,
      amountLamports: spend.amountLamports,
      effect,
      tokenAmount: lamportsOf(built?.tokenAmount),
      programIds: built?.programIds ?? [],
      slippageBps: typeof row.intent.slippageBps === "number" ? row.intent.slippageBps : undefined,
      // a swap: every pool of its route, and the age of the quote its build used (at this decision)
      ...(built?.pools === undefined ? {} : { pools: built.pools, pool: built.pools[0] }),
      ...(built?.outputMint === undefined ? {} : { outputMint: built.outputMint }),
      ...(built?.oracleDeviationBps === undefined ? {} : { oracleDeviationBps: built.oracleDeviationBps }),
      ...(built?.oracleUnavailable === undefined ? {} : { oracleUnavailable: built.oracleUnavailable }),
      ...(built?.quotedAt === undefined ? {} : { quoteAgeSeconds: Math.max(0, Math.floor((now.getTime() - Date.parse(built.quotedAt)) / 1000)) })
    },
    preBalanceLamports,
    gasless: row.gasless, requireApproval: row.require_approval, timestamp: now
  }
}
