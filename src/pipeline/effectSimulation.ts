/**
 * Every signing path simulates through here (issue 31): the accounts the message can write (and the
 * wallet) are read, then the transaction is simulated asking for the same accounts as it leaves them and
 * for its inner instructions, and its whole effect on the wallet is analysed (src/policy/effect). The
 * catalog of programs the analysis explains is the deployment's: the standard ones plus ours, as their
 * adapters name their instructions, at the ids this service is configured with (ProtocolPrograms).
 */
import { Effect, Either, Schema } from "effect"
import { TransactionEffect } from "../../schemas/effect.js"
import { ChainClient, type ChainError } from "../chain/chainClient.js"
import { type AccountsAnswer, ChainFacts } from "../chain/chainFacts.js"
import { accountsToRead, analyzeEffect } from "../policy/effect/analyzeEffect.js"
import type { AccountState } from "../policy/effect/accountState.js"
import { programCatalog, taggedProgram, type ProgramCatalog } from "../policy/effect/programCatalog.js"
import { viewMessage } from "../protocols/messageView.js"
import { ProtocolPrograms } from "../protocols/protocolPrograms.js"
import { assembleTransaction } from "./wireTransaction.js"

interface RpcAccount {
  readonly lamports: number
  readonly owner: string
  readonly data: [string, string]
}

interface RpcSimulation {
  readonly err: unknown
  readonly logs: Array<string> | null
  readonly unitsConsumed?: number
  readonly accounts?: Array<RpcAccount | null> | null
  readonly innerInstructions?: unknown
}

/** What a simulation found: the effect (encoded, as a transaction records it), or why it could not be read. */
export type SimulatedEffect = { readonly logs: ReadonlyArray<string>; readonly unitsConsumed?: number; readonly walletLamportsBefore: bigint } & (
  | { readonly ok: true; readonly effect: typeof TransactionEffect.Encoded }
  | { readonly ok: true; readonly effectError: string }
  | { readonly ok: false; readonly err: unknown }
)

const encodeEffect = Schema.encodeSync(TransactionEffect)

/**
 * The effect each encoded effect was made from, while that object lives: the policy stage of the same run
 * reads it here instead of decoding it again (a resumed run decodes the stored one: effectFacts.ts).
 */
export const analysedEffects = new WeakMap<object, TransactionEffect>()

const encoded = (effect: TransactionEffect) => {
  const wire = encodeEffect(effect)
  analysedEffects.set(wire, effect)
  return wire
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

const asState = (account: RpcAccount | null | undefined): AccountState | null =>
  account === null || account === undefined ? null : { lamports: BigInt(account.lamports), owner: account.owner, data: Buffer.from(account.data[0], "base64") }

export class EffectSimulation extends Effect.Service<EffectSimulation>()("EffectSimulation", {
  dependencies: [ChainFacts.Default, ProtocolPrograms.Default],
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const facts = yield* ChainFacts
    const programs = yield* ProtocolPrograms
    const catalog: ProgramCatalog = programCatalog(programs.deployed.map((own) => [own.programId, taggedProgram(own.tag, own.instructions)] as const))

    /**
     * Simulates `messageBase64` (signatures not verified: nothing is signed yet) and analyses its effect on
     * `wallet`, from the accounts it can write as they are and as the simulation leaves them.
     */
    const simulate = (wallet: string, messageBase64: string, extraSignatures: Record<string, string>): Effect.Effect<SimulatedEffect, ChainError> =>
      Effect.gen(function* () {
        const read = Either.try(() => {
          const view = viewMessage(Buffer.from(messageBase64, "base64"))
          return { view, accounts: accountsToRead(view, wallet) }
        })
        if (Either.isLeft(read)) return { ok: true, logs: [], walletLamportsBefore: 0n, effectError: errorText(read.left) }
        const { view, accounts } = read.right
        const wire = assembleTransaction(messageBase64, extraSignatures)
        // One JSON-RPC batch, in this order: the local ledger answers a batch in one step (one snapshot);
        // elsewhere both read the same commitment a moment apart.
        const [accountsRead, { value }] = yield* chain.rpcPair<AccountsAnswer, { value: RpcSimulation }>(facts.accountsCall(accounts), {
          method: "simulateTransaction",
          params: [
            wire.toString("base64"),
            {
              encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed", innerInstructions: true,
              accounts: { addresses: accounts, encoding: "base64" }
            }
          ]
        })
        const before = facts.accountFactsOf(accountsRead)
        const walletLamportsBefore = before[0]?.lamports ?? 0n
        const logs = value.logs ?? []
        const units = value.unitsConsumed === undefined ? {} : { unitsConsumed: value.unitsConsumed }
        const seen = { logs, ...units, walletLamportsBefore }
        if (value.err !== null && value.err !== undefined) return { ok: false, ...seen, err: value.err }
        const analysed = Either.try(() =>
          analyzeEffect({ wallet, message: view, accounts, before, after: (value.accounts ?? []).map(asState), innerInstructions: value.innerInstructions ?? null, catalog })
        )
        return Either.isRight(analysed) ? { ok: true, ...seen, effect: encoded(analysed.right) } : { ok: true, ...seen, effectError: errorText(analysed.left) }
      })

    return { simulate, catalog }
  })
}) {}
