/**
 * Reads and simulates a transaction for its approval preview (preview.ts): every account of the message
 * before, the simulation with those accounts after, the mints' decimals, and from them the wallet's SOL and
 * token balance changes (transfers made inside other programs included: it is the accounts that moved).
 * The issue's whole-effect analysis (i31a, src/policy/effect/) will replace this local computation.
 */
import { Effect } from "effect"
import { ChainClient, type ChainError } from "../../chain/chainClient.js"
import { ChainFacts, type AccountFacts } from "../../chain/chainFacts.js"
import { feeLamports } from "../../gasless/gaslessRules.js"
import { AmmPrograms } from "../../protocols/amm/programs.js"
import { EscrowProgram } from "../../protocols/escrow/program.js"
import { LendingMarketProgram } from "../../protocols/lending/program.js"
import { viewMessage } from "../../protocols/messageView.js"
import { LiquidStakingProgram } from "../../protocols/staking/program.js"
import { SIGN_MESSAGE_TYPE } from "../signRequest.js"
import { assembleTransaction } from "../wireTransaction.js"
import { type AccountBefore, AssetBook, assetAmount, type AssetAmount, SOL, tokenAccountOf } from "./assets.js"
import { describeInstructions } from "./instructionView.js"
import { type ApprovalPreview, PREVIEW_VERSION, summarize } from "./preview.js"

export interface PreviewInput {
  readonly type: string
  readonly protocol: string
  readonly gasless: boolean
  readonly intent: Readonly<Record<string, unknown>>
  readonly wallet: string
  readonly messageBase64: string
  readonly extraSignatures: Readonly<Record<string, string>>
  readonly riskTier: string
  readonly reasons: ReadonlyArray<string>
}

interface RpcAccount {
  readonly lamports: number
  readonly owner: string
  readonly data: [string, string]
}

/** The wallet's balance changes from each account before and after (zero changes left out, SOL first). */
const walletChanges = (wallet: string, keys: ReadonlyArray<string>, before: ReadonlyArray<AccountFacts | null>, after: ReadonlyArray<AccountBefore & { lamports: bigint } | null>, book: AssetBook) => {
  let sol = 0n
  const tokens = new Map<string, bigint>()
  const held = (account: AccountBefore | null | undefined) => {
    const token = tokenAccountOf(account)
    return token?.owner === wallet && account !== null && account !== undefined ? { mint: token.mint, amount: account.data.readBigUInt64LE(64) } : undefined
  }
  keys.forEach((key, index) => {
    const pre = before[index] ?? null
    const post = after[index] ?? null
    if (key === wallet) sol = (post?.lamports ?? 0n) - (pre?.lamports ?? 0n)
    const was = held(pre)
    const now = held(post)
    if (was !== undefined) tokens.set(was.mint, (tokens.get(was.mint) ?? 0n) - was.amount)
    if (now !== undefined) tokens.set(now.mint, (tokens.get(now.mint) ?? 0n) + now.amount)
  })
  const changes: Array<AssetAmount> = sol === 0n ? [] : [assetAmount(SOL, sol)]
  for (const [mint, delta] of tokens) if (delta !== 0n) changes.push(assetAmount(book.token(mint), delta))
  return changes
}

export class ApprovalPreviews extends Effect.Service<ApprovalPreviews>()("ApprovalPreviews", {
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const facts = yield* ChainFacts
    const amm = yield* AmmPrograms
    const knownPrograms = new Map<string, string>([
      [(yield* EscrowProgram).programId.toBase58(), "Escrow program"],
      [(yield* LiquidStakingProgram).programId.toBase58(), "Liquid staking program"],
      [(yield* LendingMarketProgram).programId.toBase58(), "Lending market program"],
      ...amm.all.map((program) => [program.programId.toBase58(), `AMM (${program.protocol})`] as const)
    ])

    /** An off-chain message to sign: nothing to simulate, the text is what is judged. */
    const messagePreview = (input: PreviewInput): ApprovalPreview => {
      const text = String(input.intent.message ?? "")
      return {
        version: PREVIEW_VERSION, summary: `Sign an off-chain message: "${text.length > 200 ? `${text.slice(0, 200)}...` : text}"`,
        wallet: input.wallet, type: input.type, protocol: input.protocol, instructions: [], balanceChanges: [],
        fee: { amount: assetAmount(SOL, 0n), paidBy: "wallet" }, counterparties: [], riskTier: input.riskTier, reasons: [...input.reasons],
        simulation: { ok: true }, simulatedAt: new Date().toISOString()
      }
    }

    const transactionPreview = (input: PreviewInput): Effect.Effect<ApprovalPreview, ChainError> =>
      Effect.gen(function* () {
        const view = viewMessage(Buffer.from(input.messageBase64, "base64"))
        const keys = view.accountKeys
        const before = yield* facts.accounts(keys)
        const wire = assembleTransaction(input.messageBase64, { ...input.extraSignatures })
        const { value } = yield* chain.rpc<{ value: { err: unknown; accounts?: Array<RpcAccount | null> | null } }>("simulateTransaction", [
          wire.toString("base64"),
          { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed", accounts: { addresses: keys, encoding: "base64" } }
        ])
        const book = new AssetBook(new Map(keys.map((key, index) => [key, before[index] ?? null])))
        const missing = book.missingMints()
        if (missing.length > 0) (yield* facts.accounts(missing)).forEach((mint, index) => book.addMint(missing[index] ?? "", mint))
        const after = (value.accounts ?? []).map((account) =>
          account === null ? null : { lamports: BigInt(account.lamports), owner: account.owner, data: Buffer.from(account.data[0], "base64") }
        )
        const balanceChanges = value.err === null ? walletChanges(input.wallet, keys, before, after, book) : []
        const instructions = describeInstructions(view, { wallet: input.wallet, assets: book, knownPrograms })
        const feePayer = keys[0]
        return {
          version: PREVIEW_VERSION,
          summary: summarize(instructions, balanceChanges),
          wallet: input.wallet, type: input.type, protocol: input.protocol,
          instructions, balanceChanges,
          fee: { amount: assetAmount(SOL, feeLamports(view)), paidBy: feePayer === input.wallet ? "wallet" : input.gasless ? "relay" : "facilitator" },
          counterparties: [...new Set(instructions.flatMap((ix) => ix.counterparties))],
          riskTier: input.riskTier, reasons: [...input.reasons],
          simulation: value.err === null ? { ok: true } : { ok: false, error: JSON.stringify(value.err) },
          simulatedAt: new Date().toISOString()
        } satisfies ApprovalPreview
      })

    /** The preview of the recorded message (or off-chain message) as it would run now. */
    const previewOf = (input: PreviewInput): Effect.Effect<ApprovalPreview, ChainError> =>
      input.type === SIGN_MESSAGE_TYPE ? Effect.sync(() => messagePreview(input)) : transactionPreview(input)

    return { previewOf }
  })
}) {}
