/**
 * Seeds the lending market on a fresh local ledger through real transactions: a reserve for wrapped SOL and one
 * for the seeded USDC test mint (each with its vault, the reserve's own associated token account, and the Pyth
 * oracle account the swaps use), then liquidity supplied by the seed authority so there is something to borrow.
 * Needs the test mints and price feeds (seedPools runs first). Idempotent: an existing reserve is left alone.
 */
import { address, lamports } from "@solana/kit"
import {
  createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction, createSyncNativeInstruction, getAssociatedTokenAddressSync, NATIVE_MINT
} from "@solana/spl-token"
import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js"
import type { LiteSVM } from "litesvm"
import { mintBySymbol, SEED_AUTHORITY } from "../protocols/amm/localPools.js"
import { initReserveInstruction, type ReserveParameters, supplyInstruction } from "../protocols/lending/instructions.js"
import { reserveAddress } from "../protocols/lending/layout.js"
import { feedBySymbol } from "../protocols/oracle/feeds.js"
import { feedAccountAddress } from "../protocols/oracle/priceUpdate.js"
import { send } from "./seedPools.js"

export interface SeedReserve extends ReserveParameters {
  readonly symbol: "SOL" | "USDC"
  /** supplied by the seed authority, in base units */
  readonly liquidity: bigint
}

/** SOL: 75% collateral factor, 5%/year; USDC: 80%, 8%/year; both 0.09% flash loan fee. */
export const SEED_RESERVES: ReadonlyArray<SeedReserve> = [
  { symbol: "SOL", collateralFactorBps: 7_500, borrowRateBps: 500, flashFeeBps: 9, liquidity: 100n * 1_000_000_000n },
  { symbol: "USDC", collateralFactorBps: 8_000, borrowRateBps: 800, flashFeeBps: 9, liquidity: 50_000n * 1_000_000n }
]

const AUTHORITY_LAMPORTS = 150n * 1_000_000_000n

/** The vault of a reserve: the reserve PDA's associated token account. */
export const reserveVault = (programId: PublicKey, mint: PublicKey): PublicKey => getAssociatedTokenAddressSync(mint, reserveAddress(programId, mint), true)

/** Returns the number of reserves created. */
export const seedLendingMarket = (svm: LiteSVM, programIdText: string): number => {
  const programId = new PublicKey(programIdText)
  const authority = SEED_AUTHORITY.publicKey
  const missing = SEED_RESERVES.filter((spec) => !svm.getAccount(address(reserveAddress(programId, mintBySymbol(spec.symbol).address).toBase58())).exists)
  if (missing.length === 0) return 0
  svm.airdrop(address(authority.toBase58()), lamports(AUTHORITY_LAMPORTS))
  for (const spec of missing) {
    const mint = mintBySymbol(spec.symbol).address
    const feed = feedBySymbol(spec.symbol)
    if (feed === undefined) throw new Error(`no price feed for ${spec.symbol}`)
    const reserve = reserveAddress(programId, mint)
    const vault = reserveVault(programId, mint)
    send(svm, [
      createAssociatedTokenAccountIdempotentInstruction(authority, vault, reserve, mint),
      initReserveInstruction(programId, authority, mint, vault, feedAccountAddress(feed.feedId), spec)
    ], [])
    const source = getAssociatedTokenAddressSync(mint, authority)
    const funding: TransactionInstruction[] = [createAssociatedTokenAccountIdempotentInstruction(authority, source, authority, mint)]
    if (mint.equals(NATIVE_MINT)) funding.push(SystemProgram.transfer({ fromPubkey: authority, toPubkey: source, lamports: spec.liquidity }), createSyncNativeInstruction(source))
    else funding.push(createMintToInstruction(mint, source, authority, spec.liquidity))
    funding.push(supplyInstruction({ programId, owner: authority, mint, vault, userToken: source }, spec.liquidity))
    send(svm, funding, [])
  }
  return missing.length
}
