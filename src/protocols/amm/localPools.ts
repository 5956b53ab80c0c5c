/**
 * The test mints and pools the local ledger seeds on both AMMs (src/ledger/seedPools.ts), at slightly
 * different prices and fee tiers so routing matters. Keys come from fixed labels: these are test mints of a
 * local ledger, not secrets, and the same on every machine (so the service can name their symbols).
 */
import { createHash } from "node:crypto"
import { NATIVE_MINT } from "@solana/spl-token"
import { Keypair, type PublicKey } from "@solana/web3.js"
import { keyFromSeed } from "../../wallet/ed25519.js"
import type { AmmProtocol } from "./ammIds.js"

/**
 * The keypair of a label's seed. Its public key comes from node:crypto's Ed25519 (microseconds):
 * `Keypair.fromSeed` derives it in JavaScript, whose first use builds its tables, ~85 ms of every start.
 */
export const localKeypair = (label: string): Keypair => {
  const seed = createHash("sha256").update(`agent-custody local ledger: ${label}`).digest()
  return Keypair.fromSecretKey(Buffer.concat([seed, keyFromSeed(seed).publicKey]), { skipValidation: true })
}

export interface TestMint {
  readonly symbol: string
  readonly decimals: number
  readonly address: PublicKey
}

export const SEED_AUTHORITY = localKeypair("seed authority")
const usdc = localKeypair("mint USDC")
const bonk = localKeypair("mint BONK")
export const TEST_MINT_KEYPAIRS = { USDC: usdc, BONK: bonk } as const

/** Mints a client may discover: SOL (wrapped) and the two seeded test mints. */
export const KNOWN_MINTS: ReadonlyArray<TestMint> = [
  { symbol: "SOL", decimals: 9, address: NATIVE_MINT },
  { symbol: "USDC", decimals: 6, address: usdc.publicKey },
  { symbol: "BONK", decimals: 5, address: bonk.publicKey }
]

export const symbolOf = (mint: string): string | null => KNOWN_MINTS.find((m) => m.address.toBase58() === mint)?.symbol ?? null

export interface SeedPool {
  readonly protocol: AmmProtocol
  readonly feeBps: number
  readonly x: string
  readonly y: string
  /** initial reserves in base units */
  readonly amountX: bigint
  readonly amountY: bigint
}

const SOL = 1_000_000_000n
const USDC = 1_000_000n
const BONK = 100_000n

/** amm-one: 30 bps at SOL 150 USDC; amm-two: 10 bps at SOL 151.5 USDC, with less depth. */
export const SEED_POOLS: ReadonlyArray<SeedPool> = [
  { protocol: "amm-one", feeBps: 30, x: "SOL", y: "USDC", amountX: 100n * SOL, amountY: 15_000n * USDC },
  { protocol: "amm-two", feeBps: 10, x: "SOL", y: "USDC", amountX: 80n * SOL, amountY: 12_120n * USDC },
  { protocol: "amm-one", feeBps: 30, x: "USDC", y: "BONK", amountX: 20_000n * USDC, amountY: 1_000_000_000n * BONK },
  { protocol: "amm-two", feeBps: 10, x: "USDC", y: "BONK", amountX: 16_000n * USDC, amountY: 808_000_000n * BONK }
]

export const mintBySymbol = (symbol: string): TestMint => {
  const found = KNOWN_MINTS.find((m) => m.symbol === symbol)
  if (found === undefined) throw new Error(`unknown test mint ${symbol}`)
  return found
}
