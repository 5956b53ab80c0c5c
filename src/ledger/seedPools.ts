/**
 * Seeds a fresh local ledger with the test mints and AMM pools of src/protocols/amm/localPools.ts, through
 * real transactions of the token and AMM programs (init_pool, add_liquidity), before the ledger serves.
 * Idempotent: a pool that exists (persisted state) is left alone.
 */
import { address, getTransactionDecoder, lamports } from "@solana/kit"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createSyncNativeInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { type Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js"
import { FailedTransactionMetadata, type LiteSVM } from "litesvm"
import { seedPriceFeeds } from "./oracleMethods.js"
import type { AmmProtocol } from "../protocols/amm/ammIds.js"
import { addLiquidityInstruction, createPoolInstructions } from "../protocols/amm/instructions.js"
import { poolAddress } from "../protocols/amm/layout.js"
import { localKeypair, mintBySymbol, SEED_AUTHORITY, SEED_POOLS, TEST_MINT_KEYPAIRS } from "../protocols/amm/localPools.js"

const AUTHORITY_LAMPORTS = 500_000_000_000n

export const send = (svm: LiteSVM, instructions: ReadonlyArray<TransactionInstruction>, signers: ReadonlyArray<Keypair>) => {
  const tx = new Transaction()
  tx.recentBlockhash = svm.latestBlockhash()
  tx.feePayer = SEED_AUTHORITY.publicKey
  tx.add(...instructions)
  tx.sign(SEED_AUTHORITY, ...signers)
  const result = svm.sendTransaction(getTransactionDecoder().decode(tx.serialize()))
  svm.expireBlockhash()
  if (result instanceof FailedTransactionMetadata) throw new Error(`seeding failed: ${result.toString()}\n${result.meta().logs().join("\n")}`)
}

const exists = (svm: LiteSVM, key: PublicKey) => svm.getAccount(address(key.toBase58())).exists

const ata = (mint: PublicKey) => getAssociatedTokenAddressSync(mint, SEED_AUTHORITY.publicKey)

/** Returns the number of pools created. */
export const seedPools = (svm: LiteSVM, programIds: Readonly<Partial<Record<AmmProtocol, string>>>): number => {
  const missing = SEED_POOLS.filter((spec) => {
    const programId = programIds[spec.protocol]
    return programId !== undefined && !exists(svm, poolAddress(new PublicKey(programId), mintBySymbol(spec.x).address, mintBySymbol(spec.y).address))
  })
  seedPriceFeeds(svm)
  if (missing.length === 0) return 0
  const authority = SEED_AUTHORITY.publicKey
  // the wrapped-SOL mint, as on every real cluster (pools pair SOL through it)
  if (!exists(svm, NATIVE_MINT)) svm.withNativeMints()
  svm.airdrop(address(authority.toBase58()), lamports(AUTHORITY_LAMPORTS))
  const mintRent = svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))
  for (const [symbol, keypair] of Object.entries(TEST_MINT_KEYPAIRS)) {
    if (exists(svm, keypair.publicKey)) continue
    const { decimals } = mintBySymbol(symbol)
    send(svm, [
      SystemProgram.createAccount({ fromPubkey: authority, newAccountPubkey: keypair.publicKey, lamports: Number(mintRent), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
      createInitializeMint2Instruction(keypair.publicKey, decimals, authority, null)
    ], [keypair])
  }
  for (const spec of missing) {
    const programId = new PublicKey(programIds[spec.protocol]!)
    const x = mintBySymbol(spec.x).address
    const y = mintBySymbol(spec.y).address
    const lpMint = localKeypair(`lp ${spec.protocol} ${spec.x}/${spec.y}`)
    const { keys, instructions } = createPoolInstructions({ programId, payer: authority, mintX: x, mintY: y, lpMint, feeBps: spec.feeBps, lpMintRent: mintRent })
    send(svm, instructions, [lpMint])
    const funding: TransactionInstruction[] = []
    for (const [mint, amount] of [[x, spec.amountX], [y, spec.amountY]] as const) {
      funding.push(createAssociatedTokenAccountIdempotentInstruction(authority, ata(mint), authority, mint))
      if (mint.equals(NATIVE_MINT)) {
        funding.push(SystemProgram.transfer({ fromPubkey: authority, toPubkey: ata(mint), lamports: amount }), createSyncNativeInstruction(ata(mint)))
      } else {
        funding.push(createMintToInstruction(mint, ata(mint), authority, amount))
      }
    }
    funding.push(createAssociatedTokenAccountIdempotentInstruction(authority, ata(keys.lpMint), authority, keys.lpMint))
    const [amountA, amountB] = keys.mintA.equals(x) ? [spec.amountX, spec.amountY] : [spec.amountY, spec.amountX]
    funding.push(addLiquidityInstruction(keys, authority, amountA, amountB, 1n))
    send(svm, funding, [])
  }
  return missing.length
}
