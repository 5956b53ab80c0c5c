/**
 * What an adapter's indexer reads of a transaction that confirmed: the pipeline hands over its row
 * and the landed meta, which carry at least these fields (declared here so adapters never import the
 * pipeline that calls them).
 */
export interface ConfirmedTransaction {
  readonly id: string
  readonly tenant_id: string
  readonly wallet_id: string
  readonly agent_id: string | null
  readonly type: string
  readonly protocol: string
  readonly build_facts: { readonly outputMint?: string | undefined; readonly tokenMint: string | null } | null
}

/** The token balances of a landed transaction's meta, as the ledger reports them. */
export interface ConfirmedMeta {
  readonly postTokenBalances?: ReadonlyArray<{ readonly mint: string; readonly owner?: string; readonly uiTokenAmount: { readonly amount: string } }> | null
}
