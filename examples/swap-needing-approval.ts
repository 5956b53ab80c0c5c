/**
 * A swap that needs approval: the wallet's policy asks a human for any swap above 0.05 SOL. The swap stops at the
 * approval gate (nothing signed); an operator reads it in the pending approvals and approves it; it confirms.
 *
 *   CUSTODY_API_KEY=<key> npx tsx examples/swap-needing-approval.ts
 */
import { connect } from "./connect.js"

const custody = connect()
const { pools } = await custody.defi.pools()
const solUsdc = pools.find((pool) => pool.protocol === "amm-one" && [pool.mintA.symbol, pool.mintB.symbol].includes("SOL") && [pool.mintA.symbol, pool.mintB.symbol].includes("USDC"))
if (solUsdc === undefined) throw new Error("no SOL/USDC pool on amm-one (npm start seeds one on the local ledger)")
const [sol, usdc] = solUsdc.mintA.symbol === "SOL" ? [solUsdc.mintA.address, solUsdc.mintB.address] : [solUsdc.mintB.address, solUsdc.mintA.address]

const wallet = await custody.wallets.create({ label: "trader", autoFund: true, fundLamports: 2_000_000_000 })
await custody.policies.create({ walletId: wallet.id, name: "big swaps need a human", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 50_000_000 }] })

const quote = await custody.defi.quote({ protocol: "amm-one", inputMint: sol, outputMint: usdc, amount: "100000000", wallet: wallet.publicKey })
console.log(`quote: 0.1 SOL -> ${quote.outAmount} USDC base units (at least ${quote.minimumOut})`)

const swap = await custody.transactions.createAndWait({
  walletId: wallet.id, type: "swap", protocol: "amm-one", intent: { inputMint: sol, outputMint: usdc, amount: "100000000", slippageBps: 100 }
})
console.log(`swap: ${swap.status} (${swap.policyDecision?.reasons.join("; ") ?? ""})`)

const { transactions: pending } = await custody.transactions.pendingApprovals(wallet.id)
console.log(`waiting for approval: ${pending.map((tx) => tx.id).join(", ")}`)
// The preview's hash: only what was shown is approved, and the approve is safe to send again.
await custody.transactions.approve(swap.id, { previewHash: swap.approval?.previewHash })
const done = await custody.transactions.wait(swap.id)
const usdcHeld = (await custody.wallets.tokens(wallet.id)).tokens.find((token) => token.mint === usdc)?.amount ?? "0"
console.log(`after approval: ${done.status}; the wallet holds ${usdcHeld} USDC base units`)

if (swap.status !== "approval_gate" || done.status !== "confirmed" || usdcHeld === "0") process.exitCode = 1
