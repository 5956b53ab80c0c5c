/**
 * The preview of a transaction for its approval (preview.ts): the wallet's balance changes and what changes
 * hands come from the transaction's whole simulated effect (issue 31, src/policy/effect/, recorded with its
 * simulation); the instructions are described from the message, with the accounts as they are now read for
 * names, mints and decimals.
 */
import { Effect } from "effect"
import type { TransactionEffect } from "../../../schemas/effect.js"
import type { ChainError } from "../../chain/chainClient.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import { feeLamports } from "../../gasless/gaslessRules.js"
import { viewMessage } from "../../protocols/messageView.js"
import { ProtocolPrograms } from "../../protocols/protocolPrograms.js"
import { SIGN_MESSAGE_TYPE } from "../signRequest.js"
import { AssetBook, assetAmount, type AssetAmount, SOL } from "./assets.js"
import { describeInstructions } from "./instructionView.js"
import { type ApprovalPreview, PREVIEW_VERSION, summarize } from "./preview.js"

export interface PreviewInput {
  readonly type: string
  readonly protocol: string
  readonly gasless: boolean
  readonly intent: Readonly<Record<string, unknown>>
  readonly wallet: string
  readonly messageBase64: string
  readonly riskTier: string
  readonly reasons: ReadonlyArray<string>
  /** the simulation of this message and the effect it found (absent for an off-chain message) */
  readonly simulated: { readonly ok: boolean; readonly error?: string; readonly effect?: TransactionEffect }
}

/** The wallet's SOL and per-mint token changes, from the effect (zero changes left out, SOL first). */
const balanceChangesOf = (effect: TransactionEffect, book: AssetBook): ReadonlyArray<AssetAmount> => {
  const sol = effect.sol.afterLamports - effect.sol.beforeLamports
  const tokens = new Map<string, bigint>()
  for (const change of effect.tokenChanges) tokens.set(change.mint, (tokens.get(change.mint) ?? 0n) + change.after - change.before)
  return [
    ...(sol === 0n ? [] : [assetAmount(SOL, sol)]),
    ...[...tokens].filter(([, delta]) => delta !== 0n).map(([mint, delta]) => assetAmount(book.token(mint), delta))
  ]
}

/** What changes hands or closes, in words (the effect's control changes and closes). */
const controlsOf = (effect: TransactionEffect, book: AssetBook): ReadonlyArray<string> => [
  ...effect.controlChanges.map((change) =>
    `${change.kind.replaceAll("_", " ")} of ${book.label(change.account, effect.wallet)}: ${change.from ?? "none"} -> ${change.to ?? "none"}`
  ),
  ...effect.closedAccounts.map((closed) => `closes ${book.label(closed.account, effect.wallet)}; its ${assetAmount(SOL, closed.lamports).display} go to ${closed.destination ?? "an account decoding does not name"}`)
]

export class ApprovalPreviews extends Effect.Service<ApprovalPreviews>()("ApprovalPreviews", {
  dependencies: [ChainFacts.Default, ProtocolPrograms.Default],
  effect: Effect.gen(function* () {
    const facts = yield* ChainFacts
    const knownPrograms = new Map((yield* ProtocolPrograms).deployed.map((own) => [own.programId, own.label] as const))

    /** An off-chain message to sign: nothing to simulate, the text is what is judged. */
    const messagePreview = (input: PreviewInput): ApprovalPreview => {
      const text = String(input.intent.message ?? "")
      return {
        version: PREVIEW_VERSION, summary: `Sign an off-chain message: "${text.length > 200 ? `${text.slice(0, 200)}...` : text}"`,
        wallet: input.wallet, type: input.type, protocol: input.protocol, instructions: [], balanceChanges: [], controls: [],
        fee: { amount: assetAmount(SOL, 0n), paidBy: "wallet" }, counterparties: [], newAccounts: [], riskTier: input.riskTier, reasons: [...input.reasons],
        simulation: { ok: true }, simulatedAt: new Date().toISOString()
      }
    }

    const transactionPreview = (input: PreviewInput): Effect.Effect<ApprovalPreview, ChainError> =>
      Effect.gen(function* () {
        const view = viewMessage(Buffer.from(input.messageBase64, "base64"))
        const keys = view.accountKeys
        const before = yield* facts.accounts(keys)
        const book = new AssetBook(new Map(keys.map((key, index) => [key, before[index] ?? null])))
        const effect = input.simulated.ok ? input.simulated.effect : undefined
        const missing = [...new Set([...book.missingMints(), ...(effect?.tokenChanges.map((change) => change.mint) ?? [])])].filter((mint) => book.token(mint).decimals === null)
        if (missing.length > 0) (yield* facts.accounts(missing)).forEach((mint, index) => book.addMint(missing[index] ?? "", mint))
        const balanceChanges = effect === undefined ? [] : balanceChangesOf(effect, book)
        const instructions = describeInstructions(view, { wallet: input.wallet, assets: book, knownPrograms })
        const recipients = effect?.recipients.map((recipient) => recipient.address) ?? []
        const feePayer = keys[0]
        // signers besides the wallet and the fee payer: keys the builder generated (a new mint), new on every build
        const newAccounts = keys.slice(0, view.numRequiredSignatures).filter((key) => key !== input.wallet && key !== feePayer)
        return {
          version: PREVIEW_VERSION,
          summary: summarize(instructions, balanceChanges),
          wallet: input.wallet, type: input.type, protocol: input.protocol,
          instructions, balanceChanges,
          controls: effect === undefined ? [] : controlsOf(effect, book),
          fee: { amount: assetAmount(SOL, effect?.feeLamports ?? feeLamports(view)), paidBy: feePayer === input.wallet ? "wallet" : input.gasless ? "relay" : "facilitator" },
          counterparties: [...new Set([...instructions.flatMap((ix) => ix.counterparties), ...recipients])],
          newAccounts,
          riskTier: input.riskTier, reasons: [...input.reasons],
          simulation: input.simulated.ok ? { ok: true } : { ok: false, error: input.simulated.error ?? "failed" },
          simulatedAt: new Date().toISOString()
        } satisfies ApprovalPreview
      })

    /** The preview of the message (or off-chain message) as simulated. */
    const previewOf = (input: PreviewInput): Effect.Effect<ApprovalPreview, ChainError> =>
      input.type === SIGN_MESSAGE_TYPE ? Effect.sync(() => messagePreview(input)) : transactionPreview(input)

    return { previewOf }
  })
}) {}
