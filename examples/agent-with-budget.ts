/**
 * An agent with a budget: it may spend 0.02 SOL from its wallet (transfers only). Its first payment confirms and
 * counts against the budget; the next one would exceed it and is refused, naming what remains.
 *
 *   CUSTODY_API_KEY=<key> npx tsx examples/agent-with-budget.ts
 */
import { CustodyError } from "../sdk/src/index.js"
import { connect, someAddress } from "./connect.js"

const custody = connect()
const wallet = await custody.wallets.create({ label: "agent wallet", autoFund: true, fundLamports: 1_000_000_000 })
const agent = await custody.agents.create({ name: "payments bot", walletId: wallet.id, allowedIntents: ["transfer_sol"], budgetLamports: 20_000_000 })

const first = await custody.agents.execute(agent.id, { type: "transfer_sol", protocol: "system-program", intent: { destination: await someAddress(), lamports: 15_000_000 } })
const budget = await custody.agents.budget(agent.id)
console.log(`first payment: ${first.status}; spent today ${budget.spentLamportsToday} of ${budget.budgetLamports}`)

let refusal: CustodyError | undefined
try {
  await custody.agents.execute(agent.id, { type: "transfer_sol", protocol: "system-program", intent: { destination: await someAddress(), lamports: 15_000_000 } })
} catch (error) {
  if (!(error instanceof CustodyError)) throw error
  refusal = error
}
console.log(`second payment: ${refusal?.errorCode ?? "not refused"}: ${refusal?.message ?? ""} (retry guidance: ${refusal?.guidance ?? "-"})`)

if (first.status !== "confirmed" || refusal?.errorCode !== "POLICY_VIOLATION") process.exitCode = 1
