/**
 * The built payment must do what the requirement says and nothing else (pure, fail closed): the facts
 * policy sees come from the requirement, so the message is checked against them before it is simulated.
 * Allowed: compute budget, memos, and exactly one token TransferChecked of `amount` of `asset` from the
 * wallet's account to the payee's associated token account, authorized by the wallet.
 */
import { getAssociatedTokenAddressSync } from "@solana/spl-token"
import { PublicKey } from "@solana/web3.js"
import { MEMO_PROGRAM, MEMO_V1_PROGRAM, TOKEN_2022_PROGRAM } from "../programIds.js"
import type { MessageView } from "../messageView.js"
import { COMPUTE_BUDGET_PROGRAM_ID, TOKEN_PROGRAM } from "../programIds.js"

const TRANSFER_CHECKED = 12

export const paymentMismatch = (
  view: MessageView,
  expected: { readonly wallet: string; readonly payTo: string; readonly asset: string; readonly amount: bigint }
): string | null => {
  let transfers = 0
  for (const [i, ix] of view.instructions.entries()) {
    if (ix.programId === COMPUTE_BUDGET_PROGRAM_ID || ix.programId === MEMO_PROGRAM || ix.programId === MEMO_V1_PROGRAM) continue
    if (ix.programId !== TOKEN_PROGRAM && ix.programId !== TOKEN_2022_PROGRAM) return `instruction ${i} calls program ${ix.programId}, not part of an x402 payment`
    if (ix.data[0] !== TRANSFER_CHECKED || ix.data.length < 10 || ix.accounts.length < 4) return `instruction ${i} is a token instruction other than TransferChecked`
    const [source, mint, destination, authority] = ix.accounts.slice(0, 4).map((index) => view.accountKeys[index])
    const tokenProgram = new PublicKey(ix.programId)
    const payeeAccount = getAssociatedTokenAddressSync(new PublicKey(expected.asset), new PublicKey(expected.payTo), true, tokenProgram).toBase58()
    const walletAccount = getAssociatedTokenAddressSync(new PublicKey(expected.asset), new PublicKey(expected.wallet), true, tokenProgram).toBase58()
    if (mint !== expected.asset) return `the transfer's mint ${mint} is not the required asset ${expected.asset}`
    if (authority !== expected.wallet || source !== walletAccount) return "the transfer does not come from the wallet's token account"
    if (destination !== payeeAccount) return `the transfer does not go to the payee's token account ${payeeAccount}`
    if (ix.data.readBigUInt64LE(1) !== expected.amount) return `the transfer moves ${ix.data.readBigUInt64LE(1)}, not the required ${expected.amount}`
    transfers++
  }
  if (transfers !== 1) return `the payment holds ${transfers} transfers, not one`
  if (view.accountKeys[0] === expected.wallet) {
    return "the wallet would pay the transaction fee (the facilitator pays it in the exact scheme)"
  }
  return null
}
