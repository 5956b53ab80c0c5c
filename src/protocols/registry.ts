/**
 * The one adapter registry: each protocol's capabilities, program ids and transaction builders. It both
 * answers what is implemented (a protocol with builders) and dispatches builds (a type without a builder
 * is a build failure with a clear message). Adding an adapter is one entry in ADAPTERS.
 *
 * A build decodes the stored intent once, by its type's schema, and hands the typed value to the builder.
 */
import type { PublicKey } from "@solana/web3.js"
import { Effect, ParseResult, Schema } from "effect"
import { IntentPayloads, type TransactionType } from "../../schemas/intent.js"
import { PROTOCOLS, type ProtocolId } from "../../schemas/protocol.js"
import type { ChainError } from "../chain/chainClient.js"
import { AdapterInputError } from "./adapterError.js"
import type { AdapterError, AdapterServices, Builder, Builders } from "./adapterRequest.js"
import { LOCAL_AMM_PROGRAM_IDS } from "./amm/ammIds.js"
import type { BuiltTransaction } from "./builtTransaction.js"
import { escrowBuilders } from "./escrow/buildWithChain.js"
import type { AdapterOperation } from "./transactionTypes.js"
import {
  ASSOCIATED_TOKEN_PROGRAM,
  DEFAULT_ESCROW_PROGRAM_ID,
  parseProgramId,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM
} from "./programIds.js"
import { nftBuilders } from "./nft/builders.js"
import { NFT_PROGRAM_IDS } from "./nft/nftProgramIds.js"
import { rawInstructionBuilders } from "./rawInstructions.js"
import { splTokenBuilders } from "./splTokenWithChain.js"
import { systemProgramBuilders } from "./systemProgramWithChain.js"
import { swapBuilders } from "./amm/swapBuilder.js"
import { stakingBuilders } from "./staking/stakeBuilder.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "./staking/stakingIds.js"
import { lendingBuilders } from "./lending/builders.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "./lending/lendingIds.js"

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
  /** AMM_ONE_PROGRAM_ID / AMM_TWO_PROGRAM_ID; the local ledger's ids when unset */
  readonly ammOneProgramId?: string
  readonly ammTwoProgramId?: string
  /** LIQUID_STAKING_PROGRAM_ID; the local ledger's id when unset */
  readonly liquidStakingProgramId?: string
  /** LENDING_MARKET_PROGRAM_ID; the local ledger's id when unset */
  readonly lendingMarketProgramId?: string
}

interface ProgramIds {
  readonly escrow: string
  readonly ammOne: string
  readonly ammTwo: string
  readonly liquidStaking: string
  readonly lendingMarket: string
}

interface AdapterEntry {
  readonly protocol: ProtocolId
  readonly capabilities: ReadonlyArray<AdapterOperation>
  readonly programIds: (ids: ProgramIds) => ReadonlyArray<string>
  readonly builders: Builders
}

const ADAPTERS: ReadonlyArray<AdapterEntry> = [
  { protocol: "system-program", capabilities: ["transfer_sol", "create_account"], programIds: () => [SYSTEM_PROGRAM_ID], builders: systemProgramBuilders },
  // create_mint also invokes the System program (createAccount) and transfers may create an ATA
  {
    protocol: "spl-token",
    // x402_pay is a token payment, built by its own pipeline stage (src/pipeline/x402Stages.ts)
    capabilities: ["transfer_spl", "create_mint", "mint_token", "x402_pay"],
    programIds: () => [TOKEN_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM_ID],
    builders: splTokenBuilders
  },
  { protocol: "escrow", capabilities: ESCROW_CAPABILITIES, programIds: (ids) => [ids.escrow], builders: escrowBuilders },
  { protocol: "dex-aggregator", capabilities: ["swap", "quote"], programIds: (ids) => [ids.ammOne, ids.ammTwo], builders: swapBuilders },
  { protocol: "amm-one", capabilities: ["swap"], programIds: (ids) => [ids.ammOne], builders: swapBuilders },
  { protocol: "amm-two", capabilities: ["swap"], programIds: (ids) => [ids.ammTwo], builders: swapBuilders },
  { protocol: "liquid-staking", capabilities: ["stake", "unstake"], programIds: (ids) => [ids.liquidStaking], builders: stakingBuilders },
  // flash_loan_bundle borrows from this market's reserves (docs/decisions/lending.md), so it is listed with the spec's two
  { protocol: "lending-market", capabilities: ["lend_supply", "lend_borrow", "lend_withdraw", "lend_repay", "flash_loan_bundle"], programIds: (ids) => [ids.lendingMarket], builders: lendingBuilders },
  // nft_mint is a Token-2022 mint with its metadata extension (docs/decisions/nft.md)
  { protocol: "nft-program", capabilities: ["nft_mint"], programIds: () => NFT_PROGRAM_IDS, builders: nftBuilders }
]

export const protocolRegistry = (options: RegistryOptions = {}): ReadonlyArray<ProtocolAdapterInfo> => {
  const ids: ProgramIds = {
    escrow: parseProgramId(options.escrowProgramId ?? DEFAULT_ESCROW_PROGRAM_ID, "ESCROW_PROGRAM_ID"),
    ammOne: parseProgramId(options.ammOneProgramId ?? LOCAL_AMM_PROGRAM_IDS["amm-one"], "AMM_ONE_PROGRAM_ID"),
    ammTwo: parseProgramId(options.ammTwoProgramId ?? LOCAL_AMM_PROGRAM_IDS["amm-two"], "AMM_TWO_PROGRAM_ID"),
    liquidStaking: parseProgramId(options.liquidStakingProgramId ?? LOCAL_LIQUID_STAKING_PROGRAM_ID, "LIQUID_STAKING_PROGRAM_ID"),
    lendingMarket: parseProgramId(options.lendingMarketProgramId ?? LOCAL_LENDING_MARKET_PROGRAM_ID, "LENDING_MARKET_PROGRAM_ID")
  }
  return ADAPTERS.map((entry) => ({
    protocol: entry.protocol,
    version: CURRENT_ADAPTER_VERSION,
    capabilities: entry.capabilities,
    programIds: entry.programIds(ids),
    implemented: Object.keys(entry.builders).length > 0
  }))
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

/** What the pipeline asks for: the stored intent as written at acceptance (its schema's encoded form). */
export interface BuildRequest {
  readonly type: string
  readonly protocol: string
  readonly wallet: PublicKey
  readonly intent: unknown
}

/** Decodes the intent once by its type's schema; a stored intent that no longer decodes is refused, naming the field. */
const decodeIntent = (request: BuildRequest & { readonly type: TransactionType }) =>
  Schema.decodeUnknown(IntentPayloads[request.type] as Schema.Schema<unknown, unknown, never>, { onExcessProperty: "ignore" })(request.intent).pipe(
    Effect.mapError((error) => {
      const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
      const field = (first?.path ?? []).map(String).join(".")
      return new AdapterInputError({
        protocol: request.protocol,
        operation: request.type,
        ...(field === "" ? {} : { field }),
        message: `intent${field === "" ? "" : `.${field}`}: ${first?.message ?? "is invalid"}`
      })
    })
  )

export const buildWithAdapter = (request: BuildRequest): Effect.Effect<BuiltTransaction, AdapterError, AdapterServices> => {
  const entry = ADAPTERS.find((a) => a.protocol === request.protocol)
  const type = request.type as TransactionType
  // own properties only: a type named like an Object.prototype member must not find a "builder"
  // cpi_call / custom_instruction_bundle carry their own programs: built for any protocol named
  const builders = entry === undefined ? undefined : Object.hasOwn(rawInstructionBuilders, type) ? rawInstructionBuilders : entry.builders
  const builder = builders !== undefined && Object.hasOwn(builders, type) ? (builders[type] as Builder<TransactionType>) : undefined
  if (builder === undefined) {
    return Effect.fail(
      new AdapterInputError({
        protocol: request.protocol,
        operation: request.type,
        message: `no adapter builds ${request.type} for protocol ${request.protocol} yet`
      })
    )
  }
  return Effect.flatMap(decodeIntent({ ...request, type }), (intent) =>
    builder({ type, protocol: request.protocol, wallet: request.wallet, intent: intent as never })
  )
}
