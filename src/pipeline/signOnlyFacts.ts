/**
 * Policy facts of a transaction handed in for signing (POST /wallets/<id>/sign), from its simulation:
 * every account of the message read before and as the simulation leaves it, so the SOL and token
 * outflows of the wallet and their destinations are what the transaction really does, not what it
 * claims. One destination and one token mint at most (the policy request has one of each): anything
 * more is refused, fail closed.
 */
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { PublicKey } from "@solana/web3.js"
import type { AccountFacts } from "../chain/chainFacts.js"

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()])

export interface SimulatedAccount {
  readonly lamports: bigint
  readonly owner: string
  readonly data: Buffer
}

export interface SignOnlyFacts {
  readonly amountLamports: bigint
  readonly destination: string | undefined
  readonly tokenMint: string | undefined
  readonly tokenAmount: bigint | undefined
  readonly destinations: ReadonlyArray<string>
}

interface TokenState {
  readonly mint: string
  readonly owner: string
  readonly amount: bigint
}

const tokenState = (account: SimulatedAccount | AccountFacts | null): TokenState | undefined =>
  account !== null && TOKEN_PROGRAMS.has(account.owner) && account.data.length >= 72
    ? {
        mint: new PublicKey(account.data.subarray(0, 32)).toBase58(),
        owner: new PublicKey(account.data.subarray(32, 64)).toBase58(),
        amount: account.data.readBigUInt64LE(64)
      }
    : undefined

/** Facts, or a refusal message when the transaction does more than one policy request can describe. */
export const signOnlyFacts = (
  wallet: string,
  keys: ReadonlyArray<string>,
  before: ReadonlyArray<AccountFacts | null>,
  after: ReadonlyArray<SimulatedAccount | null>
): SignOnlyFacts | { readonly refused: string } => {
  const destinations = new Set<string>()
  const outflowMints = new Map<string, bigint>()
  let walletOutflow = 0n
  keys.forEach((key, index) => {
    const pre = before[index] ?? null
    const post = after[index] ?? null
    const lamportsBefore = pre?.lamports ?? 0n
    const lamportsAfter = post?.lamports ?? 0n
    if (key === wallet) walletOutflow = lamportsBefore > lamportsAfter ? lamportsBefore - lamportsAfter : 0n
    else if (lamportsAfter > lamportsBefore) destinations.add(key)
    const tokenBefore = tokenState(pre)
    const tokenAfter = tokenState(post)
    const mint = tokenBefore?.mint ?? tokenAfter?.mint
    if (mint === undefined) return
    const amountBefore = tokenBefore?.amount ?? 0n
    const amountAfter = tokenAfter?.amount ?? 0n
    const owner = tokenAfter?.owner ?? tokenBefore?.owner
    if (owner === wallet && amountAfter < amountBefore) outflowMints.set(mint, (outflowMints.get(mint) ?? 0n) + (amountBefore - amountAfter))
    // A token account that gains is paid to its owner (also a new account the transaction creates).
    if (owner !== wallet && amountAfter > amountBefore && owner !== undefined) {
      destinations.delete(key)
      destinations.add(owner)
    }
    // A wallet-owned token account that changes owner hands its tokens away.
    if (tokenBefore?.owner === wallet && tokenAfter !== undefined && tokenAfter.owner !== wallet) {
      outflowMints.set(mint, (outflowMints.get(mint) ?? 0n) + amountBefore)
      destinations.add(tokenAfter.owner)
    }
  })
  if (destinations.size > 1) return { refused: `the transaction pays ${destinations.size} destinations (${[...destinations].join(", ")}); signing is evaluated for at most one` }
  if (outflowMints.size > 1) return { refused: `the transaction moves ${outflowMints.size} token mints out of the wallet; signing is evaluated for at most one` }
  const [mintOut] = [...outflowMints.entries()]
  return {
    amountLamports: walletOutflow,
    destination: [...destinations][0],
    tokenMint: mintOut?.[0],
    tokenAmount: mintOut?.[1],
    destinations: [...destinations]
  }
}
