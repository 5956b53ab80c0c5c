/**
 * A protocol adapter is one module (issue 33): its capabilities, where its programs live, its transaction
 * builders and the facts of each transaction type it defines. The registry (registry.ts) lists the adapters;
 * nothing else holds a table by protocol or by type.
 */
import type { ProtocolId } from "../../schemas/protocol.js"
import type { Builders } from "./adapterRequest.js"
import type { AdapterOperation } from "./transactionTypes.js"
import type { TypeFacts } from "./typeFacts.js"

/** The configured program ids of our own programs (env, else the local ledger's). */
export interface ProgramIds {
  readonly escrow: string
  readonly ammOne: string
  readonly ammTwo: string
  readonly liquidStaking: string
  readonly lendingMarket: string
}

/**
 * One of our own programs an adapter runs on: its configured id and the setting that names it, how an
 * approval preview names it, and its instructions by tag (the effect analysis' catalog, src/policy/effect).
 */
export interface OwnProgram {
  readonly program: keyof ProgramIds
  readonly setting: string
  readonly label: string
  /** the program name the effect analysis reports its instructions under */
  readonly tag: string
  readonly instructions: Readonly<Record<number, string>>
}

export interface ProtocolAdapter<Defines extends AdapterOperation = never> {
  readonly protocol: ProtocolId
  readonly capabilities: ReadonlyArray<AdapterOperation>
  readonly programIds: (ids: ProgramIds) => ReadonlyArray<string>
  /** our programs it runs on: its health reports whether each is configured (its setting, or the local ledger) and deployed */
  readonly ownPrograms?: ReadonlyArray<OwnProgram>
  readonly builders: Builders
  /** the facts of the types this adapter defines; a type several protocols build (swap) is defined by one */
  readonly facts: { readonly [K in Defines]: TypeFacts }
  /** its programs' refusal in a failed simulation's logs, named; undefined when none of its programs failed */
  readonly describeFailure?: (logs: ReadonlyArray<string>, programIds: ReadonlyArray<string>) => string | undefined
}

/** Keeps the adapter's defined types in its type, so the registry can check every type is defined. */
export const protocolAdapter = <const Defines extends AdapterOperation = never>(adapter: ProtocolAdapter<Defines>) => adapter
