/**
 * x402_pay through the pipeline (docs/decisions/x402.md). Build: request the resource; on HTTP 402
 * read the requirements (v2 header or v1 body), pick a Solana `exact` one, build the payment with the
 * reference packages and record it; simulate; the intent's maxAmount, then the policy (payee as
 * destination, asset as token mint, amount against spending limits; the agent's budget reserved
 * maxAmount at create). Sign: the signer actor signs the simulated message as token authority (the
 * facilitator pays the fee). Send: retry the request with the payment header, record the answer, and
 * confirm the settlement signature on the ledger. A payment whose bytes may have left the service is
 * never rebuilt: a resumed run re-sends the same bytes (one transaction can land once), and a retried
 * transaction refuses to pay again.
 */
import { createHash } from "node:crypto"
import { fetch } from "undici"
import { Effect } from "effect"
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types"
import { ChainClient, ChainEndpoints } from "../chain/chainClient.js"
import { viewMessage } from "../protocols/messageView.js"
import { paymentMismatch } from "../protocols/x402/paymentCheck.js"
import { X402PaymentRepo } from "../protocols/x402/paymentRepo.js"
import { selectRequirement } from "../protocols/x402/selectRequirement.js"
import { privateAddressRefusal, resourceAgent, resourceUrlRefusal } from "../protocols/x402/resourceAddress.js"
import { AppConfig } from "../config.js"
import { COMPUTE_BUDGET_PROGRAM_ID } from "../protocols/programIds.js"
import { Settlement } from "./settlement.js"
import { Submission } from "./submission.js"
import type { RunContext } from "./runContext.js"
import { Retryable, Terminal } from "./stageFailure.js"
import { StageTransitions, type Unwritten } from "./stageTransitions.js"
import type { TransactionRow } from "./transactionRow.js"

/**
 * The x402 client libraries (about 20 MiB resident), loaded by the first payment rather than by every
 * service start: most deployments never pay a resource.
 */
let paymentBuilderModule: Promise<typeof import("../protocols/x402/paymentBuilder.js")> | undefined
const paymentBuilder = Effect.promise(() => (paymentBuilderModule ??= import("../protocols/x402/paymentBuilder.js")))

type Simulation = { readonly ok: true; readonly logs: ReadonlyArray<string> } | { readonly ok: false; readonly logs: ReadonlyArray<string>; readonly error: string }

/** What the executor lends this stage: its simulation and its policy stage. */
export interface PipelineHooks {
  readonly simulate: (wallet: string, messageBase64: string, extraSignatures: Record<string, string>) => Effect.Effect<Simulation, Retryable>
  readonly policyEval: (row: TransactionRow, unwritten: Unwritten) => Effect.Effect<TransactionRow | undefined, Retryable | Terminal>
}

const REQUEST_TIMEOUT_MS = 30_000
const EXCERPT_CHARS = 4_096

const buildFailure = (message: string) => new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: `x402: ${message}`, stage: "build" })
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0].slice(0, 300)

interface ResourceAnswer {
  readonly status: number
  readonly headers: Headers
  readonly body: Buffer
}

/** The resource's answer as the result records it: status, content type, size, digest and a text excerpt. */
const describeAnswer = (answer: ResourceAnswer) => {
  const text = answer.body.toString("utf8")
  return {
    status: answer.status,
    contentType: answer.headers.get("content-type"),
    bodyBytes: answer.body.length,
    bodyDigest: `sha256:${createHash("sha256").update(answer.body).digest("hex")}`,
    bodyExcerpt: text.slice(0, EXCERPT_CHARS),
    bodyTruncated: text.length > EXCERPT_CHARS
  }
}

const parseJson = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString("utf8"))
  } catch {
    return undefined
  }
}

export class X402Stages extends Effect.Service<X402Stages>()("X402Stages", {
  dependencies: [X402PaymentRepo.Default, Submission.Default, Settlement.Default, StageTransitions.Default],
  effect: Effect.gen(function* () {
    const payments = yield* X402PaymentRepo
    const chain = yield* ChainClient
    const { urls } = yield* ChainEndpoints
    const { move, fail } = yield* StageTransitions
    const settlement = yield* Settlement
    const submission = yield* Submission
    const config = yield* AppConfig

    // Public addresses only unless X402_ALLOW_PRIVATE_HOSTS (resourceAddress.ts): the agent names the URL.
    const agent = resourceAgent(config.x402.allowPrivateHosts)

    /** One request to the resource as the intent describes it (plus the payment header, when paying). */
    const request = (intent: Record<string, unknown>, extraHeaders: Record<string, string>) =>
      Effect.gen(function* () {
        const refused = resourceUrlRefusal(String(intent.url), config.x402.allowPrivateHosts)
        if (refused !== undefined) return yield* Effect.fail(buildFailure(refused))
        return yield* Effect.tryPromise({
          try: async (): Promise<ResourceAnswer> => {
            const method = typeof intent.method === "string" ? intent.method : "GET"
            const headers = { ...(intent.headers as Record<string, string> | undefined), ...extraHeaders }
            const response = await fetch(String(intent.url), {
              method,
              headers,
              ...(typeof intent.body === "string" && method !== "GET" ? { body: intent.body } : {}),
              redirect: "manual",
              signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
              dispatcher: agent
            })
            return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) }
          },
          catch: (error): Retryable | Terminal => {
            const privateHost = privateAddressRefusal(error)
            return privateHost !== undefined
              ? buildFailure(privateHost)
              : new Retryable({ message: `x402: the resource did not answer: ${errorText(error)}`, failedAt: "build" })
          }
        })
      })

    /** The pipeline's build, simulation and checks of an x402_pay (status `pending`). */
    const pending = (row: TransactionRow, walletAddress: string, hooks: PipelineHooks) =>
      Effect.gen(function* () {
        const earlier = yield* payments.find(row.id)
        if (earlier !== undefined && earlier.status !== "prepared") {
          // Paid again only once the chain settled the earlier payment as spending nothing (settlement.ts).
          if (!(yield* settlement.earlierAttemptSpentNothing(row))) {
            return yield* Effect.fail(buildFailure(`a payment for this transaction was already sent (${earlier.status}${earlier.settlement_signature === null ? "" : `, settlement ${earlier.settlement_signature}`}); it is never paid twice`))
          }
          yield* payments.reopen(row.id)
        }
        const answer = yield* request(row.intent, {})
        if (answer.status !== 402) {
          return yield* move(row, {
            from: ["pending"], to: "confirmed", stage: "completed", message: `the resource answered ${answer.status} without asking for payment`,
            fields: { result: { paid: false, ...describeAnswer(answer) }, confirmedAt: new Date() }, eventType: "transaction.confirmed"
          })
        }
        const { buildPayment, httpClient } = yield* paymentBuilder
        const paymentRequired = yield* Effect.try({
          try: () => httpClient.getPaymentRequiredResponse((name) => answer.headers.get(name), parseJson(answer.body)) as PaymentRequired,
          catch: (error) => buildFailure(`the 402 answer carries no payment requirements: ${errorText(error)}`)
        })
        const selected = selectRequirement(paymentRequired.accepts as ReadonlyArray<PaymentRequirements & { maxAmountRequired?: string }>, {
          asset: typeof row.intent.asset === "string" ? row.intent.asset : undefined
        })
        if ("refused" in selected) return yield* Effect.fail(buildFailure(selected.refused))
        const { requirement, amount } = selected
        const built = yield* Effect.tryPromise({
          try: () => buildPayment({ paymentRequired, requirement, wallet: walletAddress, rpcUrl: urls[0] ?? "" }),
          catch: (error) => buildFailure(`building the payment failed: ${errorText(error)}`)
        })
        const view = viewMessage(Buffer.from(built.messageBase64, "base64"))
        const mismatch = paymentMismatch(view, { wallet: walletAddress, payTo: requirement.payTo, asset: requirement.asset, amount })
        if (mismatch !== null) return yield* Effect.fail(buildFailure(`the built payment does not match the requirement: ${mismatch}`))
        const preBalance = yield* chain.getBalance(walletAddress).pipe(Effect.catchAll((error) => Effect.fail(new Retryable({ message: error.message, failedAt: "build" }))))
        const { value: latest } = yield* chain
          .rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }])
          .pipe(Effect.catchAll((error) => Effect.fail(new Retryable({ message: error.message, failedAt: "build" }))))
        // The scheme read its blockhash a moment ago: usually this one. Otherwise the latest one's expiry is
        // later than the scheme's, so the settlement is never declared missing too early.
        const lastValidBlockHeight = BigInt(latest.lastValidBlockHeight)
        yield* payments.prepare({ txId: row.id, tenantId: row.tenant_id, url: String(row.intent.url), x402Version: paymentRequired.x402Version, requirement, payload: built.payload })
        const programIds = [...new Set(view.instructions.map((ix) => ix.programId))]
        const computeUnitLimit = view.instructions.find((ix) => ix.programId === COMPUTE_BUDGET_PROGRAM_ID && ix.data[0] === 2)?.data.readUInt32LE(1) ?? 0
        const priceIx = view.instructions.find((ix) => ix.programId === COMPUTE_BUDGET_PROGRAM_ID && ix.data[0] === 3)
        const buildFields = {
          preBalanceLamports: preBalance,
          messageBase64: built.messageBase64,
          extraSignatures: {},
          lastValidBlockHeight,
          buildFacts: {
            destination: requirement.payTo,
            tokenMint: requirement.asset,
            // The payment's base units are what spending limits count for x402 (docs/decisions/x402.md).
            amountLamports: amount.toString(),
            tokenAmount: amount.toString(),
            programIds,
            computeUnitLimit,
            priorityFeeMicroLamports: (priceIx?.data.readBigUInt64LE(1) ?? 0n).toString()
          }
        }
        const at = new Date().toISOString()
        const builtStage = {
          status: "simulating", stage: "build", eventType: "transaction.built", at,
          message: `x402 payment built: ${amount} of ${requirement.asset} to ${requirement.payTo} on ${requirement.network} (x402 v${paymentRequired.x402Version})`
        } as const
        const simulation = yield* hooks.simulate(walletAddress, built.messageBase64, {})
        if (!simulation.ok) {
          return yield* fail(row, new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: `simulation failed: ${simulation.error}`, stage: "simulate" }), {
            simulation, unwritten: { fields: buildFields, via: [builtStage] }
          })
        }
        const simulatedStage = { status: "policy_eval", stage: "policy", eventType: "transaction.simulated", message: "simulation ok", at: new Date().toISOString() } as const
        const unwritten: Unwritten = { fields: { ...buildFields, simulation }, via: [builtStage, simulatedStage] }
        const maxAmount = BigInt(String(row.intent.maxAmount))
        if (amount > maxAmount) {
          return yield* fail(row, new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: x402: the resource asks ${amount}, above the intent's maxAmount ${maxAmount}`, stage: "policy" }), {
            unwritten
          })
        }
        return yield* hooks.policyEval(row, unwritten)
      })

    /**
     * Pays: the request again with the payment header; then the settlement, confirmed on the ledger. A
     * payment that may have left (sent before, refused, or settled) is settled against the chain: a
     * resumed run asks the chain first (the resource's answer may have been lost after the facilitator
     * sent it) and asks the resource again only while the same bytes can still land, at most once; an
     * answer that does not settle leaves the transaction unresolved for the chain to decide.
     */
    const submit = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        const payment = yield* payments.find(row.id)
        if (payment === undefined) return yield* settlement.failUnsent(row, "x402: no payment is recorded for this transaction")
        if (payment.status === "refused") {
          yield* settlement.leaveUnresolved(row, "x402: the resource server did not settle the payment")
          return undefined
        }
        if (payment.status === "sent") {
          const decided = yield* settlement.decideNow(row, context).pipe(Effect.catchAll((error) => Effect.fail(new Retryable({ message: error.message, failedAt: "send" }))))
          if (decided.decided) return decided.row
        }
        let signature = payment.settlement_signature
        if (payment.status !== "settled") {
          const { httpClient, withSignedTransaction } = yield* paymentBuilder
          // Written before the bytes leave: from here on this transaction never builds another payment.
          yield* payments.markSent(row.id)
          const signed = withSignedTransaction(payment.payload as unknown as PaymentPayload, row.signed_transaction ?? "")
          const answer = yield* request(row.intent, httpClient.encodePaymentSignatureHeader(signed)).pipe(
            Effect.mapError((error) => new Retryable({ message: error.message, failedAt: "send" }))
          )
          const settled = (() => {
            try {
              return httpClient.getPaymentSettleResponse((name) => answer.headers.get(name))
            } catch {
              return undefined
            }
          })()
          const described = describeAnswer(answer)
          if (settled === undefined || !settled.success || settled.transaction === "") {
            yield* payments.refuse(row.id, { ...described, settlement: settled ?? null })
            const reason = settled?.errorReason ?? (answer.status === 402 ? "payment required again" : `status ${answer.status}`)
            yield* settlement.leaveUnresolved(row, `x402: the resource server did not settle the payment: ${reason}`)
            return undefined
          }
          signature = settled.transaction
          yield* payments.settle(row.id, settled.transaction, { ...described, settlement: { signature: settled.transaction, network: settled.network, payer: settled.payer ?? null } })
        }
        const outcome = yield* submission.confirm(signature ?? "", BigInt(row.last_valid_block_height ?? "0"))
        return yield* settlement.submitted(row, context, signature ?? "", outcome)
      })

    return { pending, submit }
  })
}) {}
