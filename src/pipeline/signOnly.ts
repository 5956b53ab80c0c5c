/**
 * The build and simulate stages of a signing request (POST /wallets/<id>/sign): nothing is built, the
 * caller's bytes are the message. A transaction is simulated with every account of its message read
 * before and after, and its policy facts (program ids, outflows, destination) come from those balance
 * changes; a message becomes its off-chain message bytes. Either way the result goes to the ordinary
 * policy stage, then to the signer, which signs exactly the recorded bytes.
 */
import { Data, Effect } from "effect"
import { ChainClient, type ChainError } from "../chain/chainClient.js"
import { ChainFacts } from "../chain/chainFacts.js"
import type { Unwritten } from "./stageTransitions.js"
import type { TransactionRow } from "./transactionRow.js"
import { decodeTransactionToSign, offChainMessageBytes, SIGN_MESSAGE_TYPE } from "./signRequest.js"
import { signOnlyFacts, type SimulatedAccount } from "./signOnlyFacts.js"
import type { BuildFactsRow } from "./transactionRow.js"
import { assembleTransaction } from "./wireTransaction.js"

export type PreparedSignRequest =
  | { readonly kind: "ready"; readonly unwritten: Unwritten }
  | { readonly kind: "simulationFailed"; readonly fields: Unwritten["fields"]; readonly simulation: { readonly error: string } }
  | { readonly kind: "refused"; readonly message: string; readonly unwritten: Unwritten }

/** The recorded request cannot be signed as it is (bad bytes, a message that is a transaction). */
export class SignInputRefused extends Data.TaggedError("SignInputRefused")<{ readonly message: string }> {}

interface RpcSimulatedAccount {
  readonly lamports: number
  readonly owner: string
  readonly data: [string, string]
}

const at = () => new Date().toISOString()

const facts = (fields: Partial<BuildFactsRow> & { programIds: ReadonlyArray<string> }): BuildFactsRow => ({
  destination: null, tokenMint: null, amountLamports: null, tokenAmount: null, computeUnitLimit: 0, priorityFeeMicroLamports: "0", ...fields
})

export class SignOnly extends Effect.Service<SignOnly>()("SignOnly", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const chainFacts = yield* ChainFacts

    const prepareMessage = (row: TransactionRow, wallet: string): PreparedSignRequest => {
      const bytes = offChainMessageBytes(String(row.intent.message ?? ""), wallet)
      return {
        kind: "ready",
        unwritten: {
          fields: { messageBase64: Buffer.from(bytes).toString("base64"), extraSignatures: {}, buildFacts: facts({ programIds: [], amountLamports: "0" }) },
          via: [{ status: "simulating", stage: "build", eventType: "transaction.built", message: "off-chain message prepared", at: at() }]
        }
      }
    }

    const prepareTransaction = (row: TransactionRow, wallet: string) =>
      Effect.gen(function* () {
        const request = decodeTransactionToSign(String(row.intent.transaction ?? ""))
        const wire = assembleTransaction(request.messageBase64, request.extraSignatures)
        const before = yield* chainFacts.accounts(request.accountKeys)
        const { value } = yield* chain.rpc<{ value: { err: unknown; logs: Array<string> | null; unitsConsumed?: number; accounts?: Array<RpcSimulatedAccount | null> | null } }>(
          "simulateTransaction",
          [
            wire.toString("base64"),
            { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed", accounts: { addresses: request.accountKeys, encoding: "base64" } }
          ]
        )
        const logs = value.logs ?? []
        const units = value.unitsConsumed === undefined ? {} : { unitsConsumed: value.unitsConsumed }
        const walletBefore = before[request.accountKeys.indexOf(wallet)]?.lamports ?? 0n
        const built = {
          preBalanceLamports: walletBefore,
          messageBase64: request.messageBase64,
          extraSignatures: request.extraSignatures
        }
        if (value.err !== null) {
          const simulation = { ok: false as const, logs, ...units, error: JSON.stringify(value.err) }
          return { kind: "simulationFailed", fields: { ...built, buildFacts: facts({ programIds: request.programIds }) }, simulation } satisfies PreparedSignRequest
        }
        const after: Array<SimulatedAccount | null> = (value.accounts ?? []).map((account) =>
          account === null ? null : { lamports: BigInt(account.lamports), owner: account.owner, data: Buffer.from(account.data[0], "base64") }
        )
        if (after.length !== request.accountKeys.length) return yield* Effect.die(new Error("simulation did not return the accounts asked for"))
        const derived = signOnlyFacts(wallet, request.accountKeys, before, after)
        const simulation = { ok: true as const, logs, ...units }
        const via = [
          { status: "simulating", stage: "build", eventType: "transaction.built", message: `transaction to sign: ${request.programIds.length} program(s)`, at: at() },
          { status: "policy_eval", stage: "policy", eventType: "transaction.simulated", message: "simulation ok", at: at() }
        ] as const
        if ("refused" in derived) {
          return { kind: "refused", message: derived.refused, unwritten: { fields: { ...built, buildFacts: facts({ programIds: request.programIds }), simulation }, via } } satisfies PreparedSignRequest
        }
        const buildFacts = facts({
          programIds: request.programIds,
          destination: derived.destination ?? null,
          tokenMint: derived.tokenMint ?? null,
          amountLamports: derived.amountLamports.toString(),
          tokenAmount: derived.tokenAmount?.toString() ?? null
        })
        return { kind: "ready", unwritten: { fields: { ...built, buildFacts, simulation }, via } } satisfies PreparedSignRequest
      })

    /** Fails with a message naming the input when the recorded request cannot be read (it was checked at the route). */
    const prepare = (row: TransactionRow, wallet: string): Effect.Effect<PreparedSignRequest, ChainError | SignInputRefused> =>
      row.type === SIGN_MESSAGE_TYPE
        ? Effect.try({ try: () => prepareMessage(row, wallet), catch: (error) => new SignInputRefused({ message: error instanceof Error ? error.message : String(error) }) })
        : Effect.suspend(() => prepareTransaction(row, wallet)).pipe(
            Effect.catchAllDefect((defect) => Effect.fail(new SignInputRefused({ message: defect instanceof Error ? defect.message : String(defect) })))
          )

    return { prepare }
  })
}) {}
