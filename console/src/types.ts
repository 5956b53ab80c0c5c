/** The shapes of the API's records that the console reads (spec "Resources and their fields"). */
export interface HistoryEntry {
  readonly status: string
  readonly stage: string
  readonly at: string
  readonly message?: string
}

/** One check of a decision explained (issue 34). */
export interface TraceEntry {
  readonly source: string
  readonly ruleType: string
  readonly observed: Record<string, unknown>
  readonly limit: Record<string, unknown>
  readonly verdict: string
  readonly reasons: ReadonlyArray<string>
}

/** What a shadow policy would have decided, beside the enforced decision (issue 34). */
export interface ShadowVerdict {
  readonly policyId: string
  readonly name: string
  readonly version: number
  readonly decision: string
  readonly reasons: ReadonlyArray<string>
  readonly agrees: boolean
}

export interface PolicyDecision {
  readonly decision: "allow" | "deny" | "require_approval"
  readonly reasons: ReadonlyArray<string>
  readonly riskTier: string
  readonly trace?: ReadonlyArray<TraceEntry>
  readonly shadow?: ReadonlyArray<ShadowVerdict>
}

/** An amount exactly (`baseUnits`) and as people read it (`amount` in whole units, `display` with the symbol). */
export interface AssetAmount {
  readonly symbol: string
  readonly mint: string | null
  readonly decimals: number | null
  readonly baseUnits: string
  readonly amount: string
  readonly display: string
}

export interface InstructionPreview {
  readonly index: number
  readonly programId: string
  readonly program: string
  readonly action: string
  readonly description: string
  readonly amounts: ReadonlyArray<AssetAmount>
  readonly counterparties: ReadonlyArray<string>
}

/** What an approver judges (docs/decisions/approvals.md); its hash binds the approval to it. */
export interface ApprovalPreview {
  readonly summary: string
  readonly wallet: string
  readonly type: string
  readonly protocol: string
  readonly instructions: ReadonlyArray<InstructionPreview>
  readonly balanceChanges: ReadonlyArray<AssetAmount>
  readonly controls: ReadonlyArray<string>
  readonly fee: { readonly amount: AssetAmount; readonly paidBy: string }
  readonly counterparties: ReadonlyArray<string>
  readonly newAccounts: ReadonlyArray<string>
  readonly riskTier: string
  readonly reasons: ReadonlyArray<string>
  readonly simulation: { readonly ok: boolean; readonly error?: string }
  readonly simulatedAt: string
}

export interface Approval {
  readonly status: string
  readonly requestedAt?: string
  readonly expiresAt?: string
  readonly decidedAt?: string
  readonly decidedBy?: string
  readonly reason?: string
  readonly approvalsRequired?: number
  readonly approvals?: ReadonlyArray<{ readonly by: string; readonly at: string }>
  readonly preview?: ApprovalPreview
  readonly previewHash?: string
  readonly round?: number
  readonly changedSinceApproval?: string
}

export interface Transaction {
  readonly id: string
  readonly walletId: string
  readonly agentId?: string
  readonly type: string
  readonly protocol: string
  readonly intent: Record<string, unknown>
  readonly status: string
  readonly stage: string
  readonly failedAt: string | null
  readonly errorCode: string | null
  readonly error?: string
  readonly signature?: string
  readonly policyDecision?: PolicyDecision
  readonly approval?: Approval
  readonly deltaGuard?: { ok: boolean; expectedLamportsDelta: number | null; observedLamportsDelta: number | null; varianceBps: number | null; reason?: string }
  readonly executionProof?: Proof
  readonly preBalanceLamports?: number | string
  readonly postBalanceLamports?: number | string
  readonly history: ReadonlyArray<HistoryEntry>
  readonly createdAt: string
  readonly confirmedAt?: string
}

export interface Proof {
  readonly txId: string
  readonly intentHash: string
  readonly policyHash: string
  readonly simulationHash: string
  readonly signature?: string
  readonly proofHash: string
}

export interface Replay {
  readonly txId: string
  readonly request: { intent: unknown }
  readonly policyDecision: unknown
  readonly simulation: unknown
  readonly proof: Proof | null
  readonly history: ReadonlyArray<HistoryEntry>
}

/** One message of the stage stream (GET /api/v1/stream). */
export interface StageEvent {
  readonly type: "stage"
  readonly txId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly status: string
  readonly stage: string
  readonly at: string
  readonly message?: string
  readonly failedAt?: string
  readonly errorCode?: string
}

export interface Wallet {
  readonly id: string
  readonly publicKey: string
  readonly provider: string
  readonly status: string
  readonly label?: string
  readonly createdAt: string
}

export interface Agent {
  readonly id: string
  readonly name: string
  readonly walletId: string
  readonly status: string
  readonly executionMode: string
  readonly allowedIntents: ReadonlyArray<string>
  readonly allowedProtocols?: ReadonlyArray<string>
  readonly budgetLamports?: number
  readonly autonomy?: { enabled: boolean; mode: string; cadenceSeconds?: number }
}

export interface Actor {
  readonly name: string
  readonly kind: string
  readonly status: string
  readonly startedAt: string
  readonly restarts: number
  readonly lastError: string | null
  readonly lastErrorAt: string | null
  readonly queueDepth: number
}

export interface Policy {
  readonly id: string
  readonly walletId: string
  readonly name: string
  readonly version: number
  readonly active: boolean
  readonly shadow?: boolean
  readonly rules: ReadonlyArray<Record<string, unknown>>
  readonly updatedAt: string
}

/** An API key as listed (never its secret). */
export interface ApiKey {
  readonly id: string
  readonly prefix: string
  readonly tenantId: string
  readonly scopes: ReadonlyArray<string>
  readonly agentId: string | null
  readonly label: string | null
  readonly status: "active" | "expired" | "revoked"
  readonly createdAt: string
  readonly createdBy: string
  readonly expiresAt: string | null
  readonly revokedAt: string | null
  readonly lastUsedAt: string | null
  readonly replacedBy: string | null
}
