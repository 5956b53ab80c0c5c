import { PROTOCOLS, type ProtocolId } from "../../schemas/protocol.js"
import type { AdapterOperation } from "./transactionTypes.js"
import {
  ASSOCIATED_TOKEN_PROGRAM,
  DEFAULT_ESCROW_PROGRAM_ID,
  parseProgramId,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM
} from "./programIds.js"

/** The nine protocol identifiers, from the contract (schemas/protocol.ts). */
export const PROTOCOL_IDS = PROTOCOLS
export type { ProtocolId }

export const isProtocolId = (value: unknown): value is ProtocolId =>
  typeof value === "string" && (PROTOCOL_IDS as ReadonlyArray<string>).includes(value)

/** The spec's adapter (`protocol`, `version`, `capabilities`, `programIds`) plus `implemented`. */
export interface ProtocolAdapterInfo {
  readonly protocol: ProtocolId
  readonly version: string
  readonly capabilities: ReadonlyArray<AdapterOperation>
  readonly programIds: ReadonlyArray<string>
  /** false: no transaction builder yet; a build for this protocol fails closed */
  readonly implemented: boolean
}

/** Current adapter version of every protocol (history in intentMigration.ts). */
export const CURRENT_ADAPTER_VERSION = "1.0.0"

/**
 * Escrow lists all eight escrow operations: the spec names create/accept/release and says the
 * others exist as transaction types; a capability list without them would refuse a refund.
 */
export const ESCROW_CAPABILITIES: ReadonlyArray<AdapterOperation> = [
  "create_escrow",
  "accept_escrow",
  "release_escrow",
  "refund_escrow",
  "dispute_escrow",
  "resolve_dispute",
  "create_milestone_escrow",
  "release_milestone"
]

export interface RegistryOptions {
  /** ESCROW_PROGRAM_ID; the placeholder default when unset */
  readonly escrowProgramId?: string
}

export const protocolRegistry = (options: RegistryOptions = {}): ReadonlyArray<ProtocolAdapterInfo> => {
  const escrowProgramId = parseProgramId(options.escrowProgramId ?? DEFAULT_ESCROW_PROGRAM_ID, "ESCROW_PROGRAM_ID")
  const adapter = (
    protocol: ProtocolId,
    capabilities: ReadonlyArray<AdapterOperation>,
    programIds: ReadonlyArray<string>,
    implemented: boolean
  ): ProtocolAdapterInfo => ({ protocol, version: CURRENT_ADAPTER_VERSION, capabilities, programIds, implemented })
  return [
    adapter("system-program", ["transfer_sol", "create_account"], [SYSTEM_PROGRAM_ID], true),
    // create_mint also invokes the System program (createAccount) and transfers may create an ATA;
    // x402_pay is a token payment (src/pipeline/x402Stages.ts)
    adapter("spl-token", ["transfer_spl", "create_mint", "mint_token", "x402_pay"], [TOKEN_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM_ID], true),
    adapter("escrow", ESCROW_CAPABILITIES, [escrowProgramId], true),
    adapter("dex-aggregator", ["swap", "quote"], [], false),
    adapter("amm-one", ["swap"], [], false),
    adapter("amm-two", ["swap"], [], false),
    adapter("liquid-staking", ["stake", "unstake"], [], false),
    adapter("lending-market", ["lend_supply", "lend_borrow"], [], false),
    adapter("nft-program", ["nft_mint"], [], false)
  ]
}

export const findAdapter = (
  registry: ReadonlyArray<ProtocolAdapterInfo>,
  protocol: string
): ProtocolAdapterInfo | undefined => registry.find((a) => a.protocol === protocol)

/** The spec's wire shape of an adapter (GET /protocols, /capabilities): without `implemented`. */
export const adapterToWire = (adapter: ProtocolAdapterInfo) => ({
  protocol: adapter.protocol,
  version: adapter.version,
  capabilities: [...adapter.capabilities],
  programIds: [...adapter.programIds]
})
