/**
 * A transfer under a policy: a wallet whose policy allows at most 0.05 SOL per transaction, and only to one
 * address. The first transfer confirms; the second, too large, is refused by policy before anything is signed.
 *
 *   CUSTODY_API_KEY=<key> npx tsx examples/transfer-under-policy.ts
 */
import { connect, someAddress } from "./connect.js"

const custody = connect()
const wallet = await custody.wallets.create({ label: "treasury", autoFund: true, fundLamports: 1_000_000_000 })
const vendor = await someAddress()
await custody.policies.create({
  walletId: wallet.id,
  name: "vendor payments",
  rules: [
    { type: "spending_limit", maxLamportsPerTx: 50_000_000 },
    { type: "address_allowlist", addresses: [vendor] }
  ]
})

const paid = await custody.transactions.createAndWait({
  walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: vendor, lamports: 10_000_000 }
})
console.log(`paid 0.01 SOL: ${paid.status} (signature ${paid.signature})`)

const tooMuch = await custody.transactions.createAndWait({
  walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: vendor, lamports: 100_000_000 }
})
console.log(`0.1 SOL: ${tooMuch.status} ${tooMuch.errorCode}: ${tooMuch.error}`)

if (paid.status !== "confirmed" || tooMuch.errorCode !== "POLICY_VIOLATION") process.exitCode = 1
