/**
 * The one adapter registry: the protocol adapters (protocolAdapter.ts), each with its capabilities, program
 * ids, transaction builders and type facts. It answers what is implemented (a protocol with builders),
 * dispatches builds (a type without a builder is a build failure with a clear message) and answers each
 * type's facts. Adding an adapter is one entry in PROTOCOL_ADAPTERS and one in TYPE_FACTS.
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
import { ammOneAdapter, ammTwoAdapter, dexAggregatorAdapter } from "./amm/protocolAdapter.js"
import type { BuiltTransaction } from "./builtTransaction.js"
import { escrowAdapter } from "./escrow/protocolAdapter.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "./lending/lendingIds.js"
import { lendingMarketAdapter } from "./lending/protocolAdapter.js"
import { nftProgramAdapter } from "./nft/protocolAdapter.js"
import { DEFAULT_ESCROW_PROGRAM_ID, parseProgramId } from "./programIds.js"
import type { ProgramIds, ProtocolAdapter } from "./protocolAdapter.js"
import { rawInstructionFacts } from "./rawInstructionFacts.js"
import { rawInstructionBuilders } from "./rawInstructions.js"
import { serviceTypeFacts } from "./serviceTypeFacts.js"
import { splTokenAdapter } from "./splToken/protocolAdapter.js"
import { liquidStakingAdapter } from "./staking/protocolAdapter.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "./staking/stakingIds.js"
import { systemProgramAdapter } from "./systemProgram/protocolAdapter.js"
import type { AdapterOperation } from "./transactionTypes.js"
import type { TypeFacts } from "./typeFacts.js"

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

export const PROTOCOL_ADAPTERS: ReadonlyArray<ProtocolAdapter> = [
  systemProgramAdapter,
  splTokenAdapter,
  escrowAdapter,
  dexAggregatorAdapter,
  ammOneAdapter,
  ammTwoAdapter,
  liquidStakingAdapter,
  lendingMarketAdapter,
  nftProgramAdapter
]

/**
 * Every operation's facts, each from the one module that defines its type: a type without facts (or an
 * adapter left out here) does not compile.
 */
export const TYPE_FACTS: Readonly<Record<AdapterOperation, TypeFacts>> = {
  ...systemProgramAdapter.facts,
  ...splTokenAdapter.facts,
  ...escrowAdapter.facts,
  ...dexAggregatorAdapter.facts,
  ...liquidStakingAdapter.facts,
  ...lendingMarketAdapter.facts,
  ...nftProgramAdapter.facts,
  ...rawInstructionFacts,
  ...serviceTypeFacts
}

/** The facts of a type; undefined for what is not one (a sign request, a name from an old row). */
export const typeFactsOf = (type: string): TypeFacts | undefined =>
  Object.hasOwn(TYPE_FACTS, type) ? TYPE_FACTS[type as AdapterOperation] : undefined

/** The operations whose facts say so. */
export const typesWhere = (holds: (facts: TypeFacts) => boolean): ReadonlyArray<AdapterOperation> =>
  (Object.keys(TYPE_FACTS) as Array<AdapterOperation>).filter((type) => holds(TYPE_FACTS[type]))

/** The first adapter's reading of a failed simulation's logs (its own programs' refusal), in registry order. */
export const describeProtocolFailure = (logs: ReadonlyArray<string>, ids: ProgramIds): string | undefined => {
  for (const adapter of PROTOCOL_ADAPTERS) {
    const described = adapter.describeFailure?.(logs, adapter.programIds(ids))
    if (described !== undefined) return described
  }
  return undefined
}

export const protocolRegistry = (options: RegistryOptions = {}): ReadonlyArray<ProtocolAdapterInfo> => {
  const ids: ProgramIds = {
    escrow: parseProgramId(options.escrowProgramId ?? DEFAULT_ESCROW_PROGRAM_ID, "ESCROW_PROGRAM_ID"),
    ammOne: parseProgramId(options.ammOneProgramId ?? LOCAL_AMM_PROGRAM_IDS["amm-one"], "AMM_ONE_PROGRAM_ID"),
    ammTwo: parseProgramId(options.ammTwoProgramId ?? LOCAL_AMM_PROGRAM_IDS["amm-two"], "AMM_TWO_PROGRAM_ID"),
    liquidStaking: parseProgramId(options.liquidStakingProgramId ?? LOCAL_LIQUID_STAKING_PROGRAM_ID, "LIQUID_STAKING_PROGRAM_ID"),
    lendingMarket: parseProgramId(options.lendingMarketProgramId ?? LOCAL_LENDING_MARKET_PROGRAM_ID, "LENDING_MARKET_PROGRAM_ID")
  }
  return PROTOCOL_ADAPTERS.map((entry) => ({
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
  const entry = PROTOCOL_ADAPTERS.find((a) => a.protocol === request.protocol)
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
