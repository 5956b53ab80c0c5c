/**
 * Intents: the 26 transaction types and the payload of each (spec: Transaction types, Intent payload
 * shapes; [n3] for the payloads the spec does not show, see docs/decisions/schemas.md).
 *
 * A handler first decodes the body with `intent` as an opaque object, then decodes `{ type, intent }`
 * with `Intent` (or `IntentPayloads[type]`), so error paths read `intent.lamports`.
 * Unknown payload fields are dropped on decode (Effect's default), never passed to an adapter.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Amount, AmountString, Base58Address, BasisPoints, Uuid } from "./common.js"
import { ProtocolId } from "./protocol.js"

export const TRANSACTION_TYPES = [
  "transfer_sol",
  "transfer_spl",
  "swap",
  "stake",
  "unstake",
  "lend_supply",
  "lend_borrow",
  "create_mint",
  "mint_token",
  "query_balance",
  "query_positions",
  "create_escrow",
  "accept_escrow",
  "release_escrow",
  "refund_escrow",
  "dispute_escrow",
  "resolve_dispute",
  "create_milestone_escrow",
  "release_milestone",
  "x402_pay",
  "flash_loan_bundle",
  "cpi_call",
  "custom_instruction_bundle",
  "treasury_allocate",
  "treasury_rebalance",
  "paper_trade"
] as const

/**
 * Intent types beyond the spec's 26: `nft_mint` (the spec shows its payload for nft-program but leaves
 * it out of the type list; docs/decisions/nft.md), and `lend_withdraw` / `lend_repay` (the way out of
 * lend_supply / lend_borrow; docs/decisions/lending.md), and `burn_token` (spl-token: burns tokens from the
 * wallet's own token account). Accepted wherever a transaction type is.
 */
export const EXTENSION_TYPES = ["nft_mint", "lend_withdraw", "lend_repay", "burn_token"] as const
export const INTENT_TYPES = [...TRANSACTION_TYPES, ...EXTENSION_TYPES] as const

/** A Literal union's own message only shows with `override` (else each member reports "Expected x"). */
const mustBeOneOf = (values: ReadonlyArray<string>) => () => ({
  message: `must be one of: ${values.join(", ")}`,
  override: true
})

export const TransactionType = Schema.Literal(...INTENT_TYPES).annotations({
  identifier: "TransactionType",
  message: mustBeOneOf(INTENT_TYPES)
})
export type TransactionType = typeof TransactionType.Type

/** Read-only types confirm without policy, signing or submission. */
export const READ_ONLY_TYPES = ["query_balance", "query_positions"] as const satisfies ReadonlyArray<TransactionType>
export type ReadOnlyTransactionType = (typeof READ_ONLY_TYPES)[number]

export const isReadOnlyType = (type: TransactionType): type is ReadOnlyTransactionType =>
  (READ_ONLY_TYPES as ReadonlyArray<TransactionType>).includes(type)

/** Types the spec rates `critical` (policy risk tier): they run arbitrary program instructions. */
export const CRITICAL_TYPES = ["flash_loan_bundle", "cpi_call", "custom_instruction_bundle"] as const satisfies ReadonlyArray<TransactionType>

// ---- building blocks ------------------------------------------------------------------------

const greaterThanZero = { message: () => "must be greater than 0" }

/** One message for a malformed amount, instead of one per accepted wire form. */
const amountMessage = () => ({
  message: "must be a non-negative integer up to 18446744073709551615 (u64): a decimal string, or a JSON number up to 9007199254740991",
  override: true
})

/** Lamports as a JSON integer or decimal string (decoded to bigint), strictly positive. */
export const PositiveLamports = Amount.annotations({ message: amountMessage }).pipe(
  Schema.filter((value) => value > 0n, greaterThanZero)
)

/** A base-unit amount written back as a decimal string (numbers accepted), decoded to bigint. */
export const TokenAmount = AmountString.annotations({ message: amountMessage })

/** A TokenAmount that must be strictly positive. */
export const PositiveTokenAmount = TokenAmount.pipe(Schema.filter((value) => value > 0n, greaterThanZero))

const U64_MAX = 18_446_744_073_709_551_615n

/** The escrow program's u64 id, as a decimal string (a JSON number cannot hold every u64). */
export const EscrowNumericId = Schema.String.pipe(
  Schema.pattern(/^(0|[1-9][0-9]{0,19})$/, { message: () => "must be a u64 decimal string" }),
  Schema.filter((value) => BigInt(value) <= U64_MAX, { message: () => "must be a u64 decimal string" })
).annotations({ identifier: "EscrowNumericId" })

const UnixSeconds = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer (unix seconds)" }),
  Schema.positive({ message: () => "must be a positive unix time in seconds" }),
  Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER, { message: () => "is too large" })
)

const boundedText = (max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `must be 1-${max} characters` }),
    Schema.maxLength(max, { message: () => `must be 1-${max} characters` })
  )

/** Largest instruction data we accept: a whole Solana packet is 1232 bytes. */
const MAX_INSTRUCTION_DATA_BYTES = 1232

/** Instruction data as standard base64. */
export const Base64Data = Schema.String.pipe(
  Schema.pattern(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, {
    message: () => "must be base64"
  }),
  Schema.maxLength(Math.ceil(MAX_INSTRUCTION_DATA_BYTES / 3) * 4, {
    message: () => `must decode to at most ${MAX_INSTRUCTION_DATA_BYTES} bytes`
  })
).annotations({ identifier: "Base64Data" })

export const AccountMeta = Schema.Struct({
  pubkey: Base58Address,
  isSigner: Schema.Boolean,
  isWritable: Schema.Boolean
})
export type AccountMeta = typeof AccountMeta.Type

const AccountMetas = Schema.Array(AccountMeta).pipe(
  Schema.maxItems(64, { message: () => "must list at most 64 accounts" })
)

export const InstructionSpec = Schema.Struct({
  programId: Base58Address,
  accounts: AccountMetas,
  data: Base64Data
})
export type InstructionSpec = typeof InstructionSpec.Type

const InstructionList = Schema.Array(InstructionSpec).pipe(
  Schema.minItems(1, { message: () => "must hold 1-16 instructions" }),
  Schema.maxItems(16, { message: () => "must hold 1-16 instructions" })
)

/** Text bounded in UTF-8 bytes, as it is stored on chain (the NFT metadata limits of the ecosystem). */
const utf8Text = (maxBytes: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `must be 1-${maxBytes} bytes (UTF-8)` }),
    Schema.filter((value) => new TextEncoder().encode(value).length <= maxBytes, { message: () => `must be 1-${maxBytes} bytes (UTF-8)` })
  )

/** At most 4 creators: with a 200-character uri the whole mint still fits one 1232-byte transaction. */
export const MAX_NFT_CREATORS = 4
export const NftCreator = Schema.Struct({
  address: Base58Address,
  verified: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
  share: Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(0, 100, { message: () => "must be between 0 and 100" })
  )
})

const HttpUrl = Schema.String.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  Schema.filter(
    (value) => {
      try {
        const url = new URL(value)
        return url.protocol === "https:" || url.protocol === "http:"
      } catch {
        return false
      }
    },
    { message: () => "must be an http(s) URL" }
  )
)

const EscrowParties = {
  escrowNumericId: EscrowNumericId,
  counterparty: Base58Address,
  creator: Base58Address,
  arbiter: Base58Address,
  feeRecipient: Base58Address
}

// ---- payloads -------------------------------------------------------------------------------

export const TransferSolIntent = Schema.Struct({ destination: Base58Address, lamports: PositiveLamports })
export const TransferSplIntent = Schema.Struct({
  destination: Base58Address,
  mint: Base58Address,
  amount: PositiveTokenAmount
})
export const SwapIntent = Schema.Struct({
  inputMint: Base58Address,
  outputMint: Base58Address,
  amount: PositiveTokenAmount,
  slippageBps: BasisPoints,
  minimumOut: Schema.optionalWith(TokenAmount, { exact: true })
})
export const StakeIntent = Schema.Struct({ amount: PositiveTokenAmount, validator: Schema.optionalWith(Base58Address, { exact: true }) })
export const UnstakeIntent = Schema.Struct({ amount: PositiveTokenAmount })
export const LendIntent = Schema.Struct({ mint: Base58Address, amount: PositiveTokenAmount })

export const CreateMintIntent = Schema.Struct({
  decimals: Schema.optionalWith(
    Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.between(0, 9, { message: () => "must be between 0 and 9" })),
    { exact: true, default: () => 9 }
  ),
  freezeAuthority: Schema.optionalWith(Base58Address, { exact: true })
})
/** destination is the owner of the receiving token account; omitted means the wallet itself. */
export const MintTokenIntent = Schema.Struct({
  mint: Base58Address,
  amount: PositiveTokenAmount,
  destination: Schema.optionalWith(Base58Address, { exact: true })
})

/** Burns from the wallet's associated token account of the mint. */
export const BurnTokenIntent = Schema.Struct({ mint: Base58Address, amount: PositiveTokenAmount })

export const QueryBalanceIntent = Schema.Struct({ mint: Schema.optionalWith(Base58Address, { exact: true }) })
export const QueryPositionsIntent = Schema.Struct({})

export const CreateEscrowIntent = Schema.Struct({
  ...EscrowParties,
  amount: PositiveTokenAmount,
  deadlineUnixSec: UnixSeconds,
  terms: Schema.optionalWith(boundedText(1024), { exact: true }),
  feeBps: Schema.optionalWith(BasisPoints, { exact: true, default: () => 0 })
})
export const EscrowByCreatorIntent = Schema.Struct({ escrowNumericId: EscrowNumericId, creator: Base58Address })
export const ReleaseEscrowIntent = Schema.Struct({
  escrowNumericId: EscrowNumericId,
  creator: Base58Address,
  counterparty: Base58Address,
  feeRecipient: Base58Address
})
export const ResolveDisputeIntent = Schema.Struct({
  escrowNumericId: EscrowNumericId,
  creator: Base58Address,
  counterparty: Base58Address,
  decision: Schema.Literal("release", "refund").annotations({ message: mustBeOneOf(["release", "refund"]) })
})

export const MAX_MILESTONES = 8
export const Milestone = Schema.Struct({
  amount: PositiveTokenAmount,
  description: Schema.optionalWith(boundedText(256), { exact: true })
})
export const CreateMilestoneEscrowIntent = Schema.Struct({
  ...EscrowParties,
  milestones: Schema.Array(Milestone).pipe(
    Schema.minItems(1, { message: () => `must hold 1-${MAX_MILESTONES} milestones` }),
    Schema.maxItems(MAX_MILESTONES, { message: () => `must hold 1-${MAX_MILESTONES} milestones` })
  ),
  deadlineUnixSec: UnixSeconds,
  terms: Schema.optionalWith(boundedText(1024), { exact: true }),
  feeBps: Schema.optionalWith(BasisPoints, { exact: true, default: () => 0 })
})
export const ReleaseMilestoneIntent = Schema.Struct({
  escrowNumericId: EscrowNumericId,
  creator: Base58Address,
  counterparty: Base58Address,
  feeRecipient: Base58Address,
  milestoneIndex: Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(0, MAX_MILESTONES - 1, { message: () => `must be between 0 and ${MAX_MILESTONES - 1}` })
  )
})

/** Pays an HTTP 402 resource: a SOL transfer to `payTo`, tied to the resource it unlocks. */
/** HTTP methods an x402 resource may be requested with. */
export const X402Method = Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE")

/** Request headers passed to the resource (names are tokens; values one line; at most 32 of them). */
const X402Headers = Schema.Record({
  key: Schema.String.pipe(Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, { message: () => "must be an HTTP header name" })),
  value: Schema.String.pipe(
    Schema.maxLength(4096, { message: () => "must be at most 4096 characters" }),
    Schema.pattern(/^[^\r\n]*$/, { message: () => "must be one line" })
  )
}).pipe(Schema.filter((headers) => Object.keys(headers).length <= 32 || "must hold at most 32 headers"))

/**
 * Pay-per-request (x402, docs/decisions/x402.md): request `url`; on HTTP 402 pay at most `maxAmount`
 * base units of the required token (`asset`, when given, must be the one) and request it again.
 */
export const X402PayIntent = Schema.Struct({
  url: HttpUrl,
  method: Schema.optionalWith(X402Method, { exact: true }),
  headers: Schema.optionalWith(X402Headers, { exact: true }),
  body: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(65_536, { message: () => "must be at most 65536 characters" })), { exact: true }),
  maxAmount: PositiveTokenAmount,
  asset: Schema.optionalWith(Base58Address, { exact: true })
})

/** Borrow `amount` of `mint`, run `instructions`, repay in the same transaction. */
export const FlashLoanBundleIntent = Schema.Struct({
  mint: Base58Address,
  amount: PositiveTokenAmount,
  instructions: InstructionList
})
export const CpiCallIntent = Schema.Struct({
  programId: Base58Address,
  accounts: AccountMetas,
  data: Base64Data
})
export const CustomInstructionBundleIntent = Schema.Struct({ instructions: InstructionList })

/** nft_mint (docs/decisions/nft.md): a Token-2022 mint of supply 1 with its metadata in the mint. */
export const NftMintIntent = Schema.Struct({
  name: utf8Text(32),
  symbol: utf8Text(10),
  uri: utf8Text(200),
  sellerFeeBasisPoints: BasisPoints,
  creators: Schema.Array(NftCreator).pipe(
    Schema.minItems(1, { message: () => `must hold 1-${MAX_NFT_CREATORS} creators` }),
    Schema.maxItems(MAX_NFT_CREATORS, { message: () => `must hold 1-${MAX_NFT_CREATORS} creators` }),
    Schema.filter((creators) => creators.reduce((sum, c) => sum + c.share, 0) === 100, {
      message: () => "shares must sum to 100"
    }),
    Schema.filter((creators) => new Set(creators.map((c) => c.address)).size === creators.length, {
      message: () => "must not name a creator twice"
    })
  )
})

export const TreasuryAllocateIntent = Schema.Struct({
  targetAgentId: Uuid,
  lamports: PositiveLamports,
  reason: Schema.optionalWith(boundedText(256), { exact: true }),
  sourceAgentId: Schema.optionalWith(Uuid, { exact: true })
})
export const TreasuryRebalanceIntent = Schema.Struct({
  sourceAgentId: Uuid,
  targetAgentId: Uuid,
  lamports: PositiveLamports,
  reason: Schema.optionalWith(boundedText(256), { exact: true })
})

/** Payloads of every type except paper_trade (whose payload wraps one of these). */
const DirectPayloads = {
  transfer_sol: TransferSolIntent,
  transfer_spl: TransferSplIntent,
  swap: SwapIntent,
  stake: StakeIntent,
  unstake: UnstakeIntent,
  lend_supply: LendIntent,
  lend_borrow: LendIntent,
  create_mint: CreateMintIntent,
  mint_token: MintTokenIntent,
  query_balance: QueryBalanceIntent,
  query_positions: QueryPositionsIntent,
  create_escrow: CreateEscrowIntent,
  accept_escrow: EscrowByCreatorIntent,
  release_escrow: ReleaseEscrowIntent,
  refund_escrow: EscrowByCreatorIntent,
  dispute_escrow: EscrowByCreatorIntent,
  resolve_dispute: ResolveDisputeIntent,
  create_milestone_escrow: CreateMilestoneEscrowIntent,
  release_milestone: ReleaseMilestoneIntent,
  x402_pay: X402PayIntent,
  flash_loan_bundle: FlashLoanBundleIntent,
  cpi_call: CpiCallIntent,
  custom_instruction_bundle: CustomInstructionBundleIntent,
  treasury_allocate: TreasuryAllocateIntent,
  treasury_rebalance: TreasuryRebalanceIntent,
  nft_mint: NftMintIntent,
  lend_withdraw: LendIntent,
  lend_repay: LendIntent,
  burn_token: BurnTokenIntent
} as const satisfies { readonly [K in Exclude<TransactionType, "paper_trade">]: Schema.Schema.AnyNoContext }

const variant = <K extends keyof typeof DirectPayloads>(type: K) =>
  Schema.Struct({ type: Schema.Literal(type), intent: DirectPayloads[type] })

/** One flat union, so decoding picks the member by its `type` literal and reports only its fields. */
const directVariants = [
  variant("transfer_sol"),
  variant("transfer_spl"),
  variant("swap"),
  variant("stake"),
  variant("unstake"),
  variant("lend_supply"),
  variant("lend_borrow"),
  variant("create_mint"),
  variant("mint_token"),
  variant("query_balance"),
  variant("query_positions"),
  variant("create_escrow"),
  variant("accept_escrow"),
  variant("release_escrow"),
  variant("refund_escrow"),
  variant("dispute_escrow"),
  variant("resolve_dispute"),
  variant("create_milestone_escrow"),
  variant("release_milestone"),
  variant("x402_pay"),
  variant("flash_loan_bundle"),
  variant("cpi_call"),
  variant("custom_instruction_bundle"),
  variant("treasury_allocate"),
  variant("treasury_rebalance"),
  variant("nft_mint"),
  variant("lend_withdraw"),
  variant("lend_repay"),
  variant("burn_token")
] as const

const IntentObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => ({ message: "must be a JSON object", override: true })
})

export const DIRECT_TYPES = INTENT_TYPES.filter(
  (type): type is Exclude<TransactionType, "paper_trade"> => type !== "paper_trade"
)

/**
 * `{ type, intent }` for every type but paper_trade. The header is checked first, so an unknown type
 * gets one message naming the allowed types rather than one "Expected x" per union member.
 */
export const DirectIntent = Schema.compose(
  Schema.Struct({
    type: Schema.Literal(...DIRECT_TYPES).annotations({ message: mustBeOneOf(DIRECT_TYPES) }),
    intent: IntentObject
  }),
  Schema.Union(...directVariants),
  { strict: false }
)
export type DirectIntent = typeof DirectIntent.Type

/**
 * paper_trade: the action to simulate, `{ type, protocol, intent }`. The inner intent is decoded by its
 * own type (paths like `intent.intent.lamports`); a paper trade of a paper trade is refused.
 */
export const PaperTradeIntent = Schema.compose(
  Schema.Struct({
    type: Schema.Literal(...DIRECT_TYPES).annotations({ message: mustBeOneOf(DIRECT_TYPES) }),
    protocol: ProtocolId,
    intent: IntentObject
  }),
  Schema.extend(Schema.Struct({ protocol: ProtocolId }), Schema.Union(...directVariants)),
  { strict: false }
)
export type PaperTradeIntent = typeof PaperTradeIntent.Type

export const IntentPayloads = {
  ...DirectPayloads,
  paper_trade: PaperTradeIntent
} as const satisfies { readonly [K in TransactionType]: Schema.Schema.AnyNoContext }
export type IntentPayloads = typeof IntentPayloads
export type IntentPayload<K extends TransactionType> = Schema.Schema.Type<IntentPayloads[K]>

/** The tagged union of all 26 intents, `{ type, intent }`; the header is checked first as above. */
export const Intent = Schema.compose(
  Schema.Struct({ type: TransactionType, intent: IntentObject }),
  Schema.Union(...directVariants, Schema.Struct({ type: Schema.Literal("paper_trade"), intent: PaperTradeIntent })),
  { strict: false }
)
export type Intent = typeof Intent.Type
export type IntentEncoded = typeof Intent.Encoded

/**
 * The fields of `intent` that its type does not know, as issues pointing at them under `intent` (strict
 * input). Only the keys are judged: values may still hold template variables (autonomy steps and rules,
 * filled and decoded in full per tick).
 */
export const unknownIntentFields = (type: TransactionType, intent: unknown): ReadonlyArray<ParseResult.ParseIssue> => {
  const decoded = Schema.decodeUnknownEither(IntentPayloads[type] as Schema.Schema<unknown, unknown, never>, {
    errors: "all",
    onExcessProperty: "error"
  })(intent)
  if (Either.isRight(decoded)) return []
  return ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
    .filter((issue) => issue._tag === "Unexpected")
    .map((issue) => new ParseResult.Pointer(["intent", ...issue.path], intent, new ParseResult.Unexpected(undefined, issue.message)))
}

// ---- protocol-version bodies (they carry an intent, so they live here, not in protocol.ts) ---

/** Body of `POST /protocols/<protocol>/compatibility-check`. */
export const ProtocolCompatibilityCheckBody = Schema.Struct({
  type: TransactionType,
  intent: Schema.optionalWith(IntentObject, { exact: true, default: () => ({}) })
})
export type ProtocolCompatibilityCheckBody = typeof ProtocolCompatibilityCheckBody.Type

export const ProtocolCompatibilityResult = Schema.Struct({
  protocol: ProtocolId,
  version: Schema.String,
  type: TransactionType,
  compatible: Schema.Boolean,
  errors: Schema.Array(Schema.String),
  warnings: Schema.Array(Schema.String)
})
export type ProtocolCompatibilityResult = typeof ProtocolCompatibilityResult.Type

/** Body of `POST /protocols/<protocol>/migrate-intent`. */
export const MigrateIntentBody = Schema.Struct({
  intent: IntentObject,
  targetVersion: boundedText(32),
  fromVersion: Schema.optionalWith(boundedText(32), { exact: true })
})
export type MigrateIntentBody = typeof MigrateIntentBody.Type

export const MigratedIntent = Schema.Struct({
  protocol: ProtocolId,
  fromVersion: Schema.String,
  targetVersion: Schema.String,
  intent: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  changes: Schema.Array(Schema.String)
})
export type MigratedIntent = typeof MigratedIntent.Type
