/**
 * The preview an approver judges (issue 31), assembled from what the service read and simulated: a one-line
 * summary, each instruction as program and action with amounts and counterparties, the simulated change of
 * the wallet's balances, the fee, the risk tier and the reasons it needs approval. Its hash (SHA-256 of its
 * canonical JSON, docs/proof.md's canonical form) binds an approval to it: approving with a hash of another
 * preview is refused, and a transaction rebuilt later signs only if its effect equals the approved one.
 */
import { canonicalJson, sha256Hex } from "../proof.js"
import type { AssetAmount } from "./assets.js"
import type { InstructionPreview } from "./instructionView.js"

export const PREVIEW_VERSION = 1

export interface ApprovalPreview {
  readonly version: number
  readonly summary: string
  readonly wallet: string
  readonly type: string
  readonly protocol: string
  readonly instructions: ReadonlyArray<InstructionPreview>
  /** the wallet's SOL and token balances after the simulated transaction minus before (the fee included) */
  readonly balanceChanges: ReadonlyArray<AssetAmount>
  /** what changes hands or closes (owner programs, delegates, authorities, closes), in words */
  readonly controls: ReadonlyArray<string>
  readonly fee: { readonly amount: AssetAmount; readonly paidBy: "wallet" | "relay" | "facilitator" }
  readonly counterparties: ReadonlyArray<string>
  /** accounts the transaction creates under keys the service generates for each build (a new mint): another build, another address */
  readonly newAccounts: ReadonlyArray<string>
  readonly riskTier: string
  readonly reasons: ReadonlyArray<string>
  /** the simulation the preview was read from: a failed one is shown, never hidden */
  readonly simulation: { readonly ok: boolean; readonly error?: string }
  /** when it was simulated (the chain may have moved since) */
  readonly simulatedAt: string
}

export const previewHash = (preview: ApprovalPreview): string => sha256Hex(canonicalJson(preview))

/** "Transfer 0.001 SOL to <addr>", or the first instruction that is not compute budget, with a count of the rest. */
export const summarize = (instructions: ReadonlyArray<InstructionPreview>, balanceChanges: ReadonlyArray<AssetAmount>): string => {
  const meaningful = instructions.filter((ix) => ix.program !== "Compute Budget")
  const first = meaningful[0]
  const outflows = balanceChanges.filter((change) => change.baseUnits.startsWith("-")).map((change) => change.display.replace(/^-/, ""))
  const lead = first === undefined ? "No instruction" : first.description
  const rest = meaningful.length > 1 ? ` (+${meaningful.length - 1} more instruction${meaningful.length > 2 ? "s" : ""})` : ""
  return `${lead}${rest}${outflows.length > 0 ? `; the wallet pays out ${outflows.join(", ")} in all` : ""}`
}

/** An asset's key in a comparison: its mint, `SOL` for SOL itself. */
const assetKey = (amount: AssetAmount) => amount.mint ?? "SOL"

/** An address as compared: a new account of this build by its place among them (`new account 1`), else itself. */
const comparable = (preview: ApprovalPreview) => {
  const fresh = new Map(preview.newAccounts.map((address, index) => [address, `new account ${index + 1}`]))
  return {
    address: (address: string) => fresh.get(address) ?? address,
    text: (line: string) => preview.newAccounts.reduce((text, address) => text.replaceAll(address, fresh.get(address) ?? address), line)
  }
}

/** How an instruction is compared: program, action and counterparties (compute budget amounts may move). */
const shapeOf = (preview: ApprovalPreview) => {
  const { address } = comparable(preview)
  return preview.instructions.filter((ix) => ix.program !== "Compute Budget").map((ix) => `${ix.programId}:${ix.action}:${ix.counterparties.map(address).sort().join(",")}`)
}
const sortedList = (values: ReadonlyArray<string>) => [...values].sort().join(" | ")

export interface EffectTolerance {
  /** SOL may differ by this many lamports (fees move between builds): DELTA_GUARD_ABSOLUTE_TOLERANCE_LAMPORTS */
  readonly lamports: bigint
  /** any asset may also differ by this share of the approved change: the protocol's deltaVarianceBpsThreshold */
  readonly varianceBps: number
}

/**
 * Why `rebuilt` does not do what `approved` did (undefined when it does, within the tolerance): a balance
 * change of another size or sign, an asset that appears or disappears, other instructions or counterparties,
 * or a simulation that failed.
 */
export const effectDifference = (approved: ApprovalPreview, rebuilt: ApprovalPreview, tolerance: EffectTolerance): string | undefined => {
  if (!rebuilt.simulation.ok) return `its simulation now fails: ${rebuilt.simulation.error ?? "unknown error"}`
  const approvedShape = shapeOf(approved).join(" | ")
  const rebuiltShape = shapeOf(rebuilt).join(" | ")
  if (approvedShape !== rebuiltShape) return "its instructions or counterparties differ from the approved ones"
  const [was, now] = [comparable(approved), comparable(rebuilt)]
  if (sortedList(approved.controls.map(was.text)) !== sortedList(rebuilt.controls.map(now.text))) return "what it hands over or closes differs from the approved preview"
  if (sortedList(approved.counterparties.map(was.address)) !== sortedList(rebuilt.counterparties.map(now.address))) return "who receives value differs from the approved preview"
  const before = new Map(approved.balanceChanges.map((change) => [assetKey(change), change]))
  const after = new Map(rebuilt.balanceChanges.map((change) => [assetKey(change), change]))
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = BigInt(before.get(key)?.baseUnits ?? "0")
    const now = BigInt(after.get(key)?.baseUnits ?? "0")
    const absolute = key === "SOL" ? tolerance.lamports : 0n
    const relative = ((was < 0n ? -was : was) * BigInt(tolerance.varianceBps)) / 10_000n
    const allowed = absolute > relative ? absolute : relative
    const delta = now - was
    if (delta > allowed || -delta > allowed) {
      const shown = after.get(key) ?? before.get(key)
      return `the wallet's ${shown?.symbol ?? key} change would be ${after.get(key)?.display ?? "nothing"} instead of the approved ${before.get(key)?.display ?? "nothing"}`
    }
  }
  return undefined
}
