/**
 * The delta guard for token flows of a swap: from the landed transaction's pre/post token balances of the
 * wallet, the input mint must have gone down by exactly the amount and the output mint up by at least the
 * minimum the build set (the chain enforces it too; this checks what the wallet really holds). Wrapped SOL
 * is opened and closed inside the transaction, so a SOL side has no token balance to compare and is skipped.
 */
import { NATIVE_MINT } from "@solana/spl-token"

export interface MetaTokenBalance {
  readonly mint: string
  readonly owner?: string
  readonly uiTokenAmount: { readonly amount: string }
}

export interface TokenDelta {
  readonly mint: string
  readonly observedDelta: bigint
  readonly expectedDelta?: bigint
  readonly minimumDelta?: bigint
  readonly ok: boolean
}

export interface TokenDeltaWire {
  readonly mint: string
  readonly observedDelta: string
  readonly expectedDelta?: string
  readonly minimumDelta?: string
  readonly ok: boolean
}

export interface SwapTokenFlow {
  readonly wallet: string
  readonly inputMint: string
  readonly outputMint: string
  readonly amount: bigint
  readonly minimumOut: bigint
  readonly preTokenBalances: ReadonlyArray<MetaTokenBalance>
  readonly postTokenBalances: ReadonlyArray<MetaTokenBalance>
}

const SOL = NATIVE_MINT.toBase58()

const holding = (balances: ReadonlyArray<MetaTokenBalance>, wallet: string, mint: string) =>
  balances.filter((b) => b.owner === wallet && b.mint === mint).reduce((sum, b) => sum + BigInt(b.uiTokenAmount.amount), 0n)

export const evaluateSwapTokenDeltas = (flow: SwapTokenFlow): ReadonlyArray<TokenDelta> => {
  const delta = (mint: string) => holding(flow.postTokenBalances, flow.wallet, mint) - holding(flow.preTokenBalances, flow.wallet, mint)
  const deltas: TokenDelta[] = []
  if (flow.inputMint !== SOL) {
    const observed = delta(flow.inputMint)
    deltas.push({ mint: flow.inputMint, observedDelta: observed, expectedDelta: -flow.amount, ok: observed === -flow.amount })
  }
  if (flow.outputMint !== SOL) {
    const observed = delta(flow.outputMint)
    deltas.push({ mint: flow.outputMint, observedDelta: observed, minimumDelta: flow.minimumOut, ok: observed >= flow.minimumOut })
  }
  return deltas
}

export const tokenDeltaToWire = (delta: TokenDelta): TokenDeltaWire => ({
  mint: delta.mint,
  observedDelta: delta.observedDelta.toString(),
  ...(delta.expectedDelta === undefined ? {} : { expectedDelta: delta.expectedDelta.toString() }),
  ...(delta.minimumDelta === undefined ? {} : { minimumDelta: delta.minimumDelta.toString() }),
  ok: delta.ok
})
