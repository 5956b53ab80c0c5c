/**
 * Which of a 402 answer's payment requirements the wallet may pay (pure): Solana networks (v2 CAIP-2
 * `solana:*`, v1 names `solana`, `solana-devnet`, `solana-testnet`), the `exact` scheme, the intent's
 * asset when it names one; the cheapest of those. The amount is checked against the intent's
 * maxAmount by the caller (a policy refusal, not a build failure).
 */
export interface RequirementLike {
  readonly scheme: string
  readonly network: string
  readonly asset: string
  readonly payTo: string
  readonly amount?: string
  readonly maxAmountRequired?: string
  readonly extra?: Record<string, unknown>
}

export interface Selected<R extends RequirementLike> {
  readonly requirement: R
  readonly amount: bigint
}

const V1_SOLANA_NETWORKS = new Set(["solana", "solana-devnet", "solana-testnet"])

export const isSolanaNetwork = (network: string): boolean => network.startsWith("solana:") || V1_SOLANA_NETWORKS.has(network)

/** The amount a requirement asks for (v2 `amount`, v1 `maxAmountRequired`), or undefined if it is not a u64 integer. */
export const requiredAmount = (requirement: RequirementLike): bigint | undefined => {
  const raw = requirement.amount ?? requirement.maxAmountRequired
  if (typeof raw !== "string" || !/^[0-9]{1,20}$/.test(raw)) return undefined
  const amount = BigInt(raw)
  return amount > 0n && amount <= 18_446_744_073_709_551_615n ? amount : undefined
}

export const selectRequirement = <R extends RequirementLike>(
  accepts: ReadonlyArray<R>,
  wanted: { readonly asset?: string | undefined }
): Selected<R> | { readonly refused: string } => {
  const candidates = accepts.flatMap((requirement) => {
    if (requirement.scheme !== "exact" || !isSolanaNetwork(requirement.network)) return []
    if (wanted.asset !== undefined && requirement.asset !== wanted.asset) return []
    if (typeof requirement.extra?.feePayer !== "string") return []
    const amount = requiredAmount(requirement)
    return amount === undefined ? [] : [{ requirement, amount }]
  })
  if (candidates.length === 0) {
    const offered = accepts.map((r) => `${r.scheme} on ${r.network} in ${r.asset}`).join(", ") || "nothing"
    return { refused: `x402: no Solana "exact" requirement${wanted.asset === undefined ? "" : ` in asset ${wanted.asset}`} among those offered (${offered})` }
  }
  return candidates.reduce((best, next) => (next.amount < best.amount ? next : best))
}
