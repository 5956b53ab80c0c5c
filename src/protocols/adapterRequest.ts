/**
 * What an adapter's builder receives: the intent already decoded by its type's schema (schemas/intent.ts)
 * into typed values (amounts as bigint, defaults filled), so no adapter parses fields again.
 */
import type { PublicKey } from "@solana/web3.js"
import type { Effect } from "effect"
import type { IntentPayload, TransactionType } from "../../schemas/intent.js"
import type { ChainError } from "../chain/chainClient.js"
import type { ChainFacts } from "../chain/chainFacts.js"
import type { AdapterInputError } from "./adapterError.js"
import type { BuiltTransaction } from "./builtTransaction.js"
import type { StalePriceError } from "./oracle/priceFreshness.js"
import type { ProgramServices } from "./protocolPrograms.js"

export interface AdapterRequest<K extends TransactionType = TransactionType> {
  readonly type: K
  readonly protocol: string
  readonly wallet: PublicKey
  readonly intent: IntentPayload<K>
}

/** Services a builder may read: chain facts through the pipeline's reads, and where our programs live. */
export type AdapterServices = ChainFacts | ProgramServices

/** Why a builder refuses: bad input, the chain unreachable, or an oracle price too old to build on. */
export type AdapterError = AdapterInputError | ChainError | StalePriceError

export type Builder<K extends TransactionType> = (
  request: AdapterRequest<K>
) => Effect.Effect<BuiltTransaction, AdapterError, AdapterServices>

/** One protocol's builders, by transaction type; a type without one is not implemented. */
export type Builders = { readonly [K in TransactionType]?: Builder<K> }
