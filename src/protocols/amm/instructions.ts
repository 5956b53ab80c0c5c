/**
 * Instructions of the AMM program (programs/amm/README.md), and the client-side accounts a new pool needs:
 * an LP mint whose authority is the pool PDA and the PDA's two associated token accounts (the vaults).
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { type Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js"
import { orderedMints, poolAddress } from "./layout.js"

export const IX_INIT_POOL = 0
export const IX_ADD_LIQUIDITY = 1
export const IX_SWAP = 2
export const IX_REMOVE_LIQUIDITY = 3

const u64 = (value: bigint) => {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64LE(value)
  return bytes
}

const meta = (pubkey: PublicKey, isSigner: boolean, isWritable: boolean) => ({ pubkey, isSigner, isWritable })

/** A pool's fixed accounts, derived from the program and the pair. */
export interface PoolKeys {
  readonly programId: PublicKey
  readonly pool: PublicKey
  readonly mintA: PublicKey
  readonly mintB: PublicKey
  readonly vaultA: PublicKey
  readonly vaultB: PublicKey
  readonly lpMint: PublicKey
}

/** Vaults are the pool PDA's associated token accounts. */
export const vaultOf = (pool: PublicKey, mint: PublicKey) => getAssociatedTokenAddressSync(mint, pool, true, TOKEN_PROGRAM_ID)

export interface CreatePoolArgs {
  readonly programId: PublicKey
  readonly payer: PublicKey
  readonly mintX: PublicKey
  readonly mintY: PublicKey
  readonly lpMint: Keypair
  readonly feeBps: number
  readonly lpMintRent: bigint
}

/** Creates the LP mint and the vaults, then init_pool. Signers: payer and lpMint. */
export const createPoolInstructions = (args: CreatePoolArgs): { readonly keys: PoolKeys; readonly instructions: TransactionInstruction[] } => {
  const [mintA, mintB] = orderedMints(args.mintX, args.mintY)
  const pool = poolAddress(args.programId, mintA, mintB)
  const vaultA = vaultOf(pool, mintA)
  const vaultB = vaultOf(pool, mintB)
  const lpMint = args.lpMint.publicKey
  const fee = Buffer.alloc(2)
  fee.writeUInt16LE(args.feeBps)
  const instructions = [
    SystemProgram.createAccount({ fromPubkey: args.payer, newAccountPubkey: lpMint, lamports: Number(args.lpMintRent), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
    createInitializeMint2Instruction(lpMint, 6, pool, null, TOKEN_PROGRAM_ID),
    createAssociatedTokenAccountIdempotentInstruction(args.payer, vaultA, pool, mintA, TOKEN_PROGRAM_ID),
    createAssociatedTokenAccountIdempotentInstruction(args.payer, vaultB, pool, mintB, TOKEN_PROGRAM_ID),
    new TransactionInstruction({
      programId: args.programId,
      keys: [
        meta(args.payer, true, true),
        meta(pool, false, true),
        meta(mintA, false, false),
        meta(mintB, false, false),
        meta(vaultA, false, false),
        meta(vaultB, false, false),
        meta(lpMint, false, false),
        meta(SystemProgram.programId, false, false)
      ],
      data: Buffer.concat([Buffer.from([IX_INIT_POOL]), fee])
    })
  ]
  return { keys: { programId: args.programId, pool, mintA, mintB, vaultA, vaultB, lpMint }, instructions }
}

const liquidityInstruction = (tag: number, keys: PoolKeys, provider: PublicKey, values: readonly [bigint, bigint, bigint]) =>
  new TransactionInstruction({
    programId: keys.programId,
    keys: [
      meta(provider, true, false),
      meta(keys.pool, false, false),
      meta(keys.vaultA, false, true),
      meta(keys.vaultB, false, true),
      meta(keys.lpMint, false, true),
      meta(getAssociatedTokenAddressSync(keys.mintA, provider), false, true),
      meta(getAssociatedTokenAddressSync(keys.mintB, provider), false, true),
      meta(getAssociatedTokenAddressSync(keys.lpMint, provider), false, true),
      meta(TOKEN_PROGRAM_ID, false, false)
    ],
    data: Buffer.concat([Buffer.from([tag]), ...values.map(u64)])
  })

/** Deposits amountA of mint_a and amountB of mint_b from the provider's associated accounts; LP to its LP account. */
export const addLiquidityInstruction = (keys: PoolKeys, provider: PublicKey, amountA: bigint, amountB: bigint, minimumLp: bigint) =>
  liquidityInstruction(IX_ADD_LIQUIDITY, keys, provider, [amountA, amountB, minimumLp])

export const removeLiquidityInstruction = (keys: PoolKeys, provider: PublicKey, shares: bigint, minimumA: bigint, minimumB: bigint) =>
  liquidityInstruction(IX_REMOVE_LIQUIDITY, keys, provider, [shares, minimumA, minimumB])

export interface SwapArgs {
  readonly keys: PoolKeys
  readonly user: PublicKey
  readonly inputMint: PublicKey
  readonly amountIn: bigint
  readonly minimumOut: bigint
}

/** Exact-input swap from the user's associated account of inputMint to its account of the other mint. */
export const swapInstruction = (args: SwapArgs): TransactionInstruction => {
  const { keys } = args
  const aToB = args.inputMint.equals(keys.mintA)
  const [vaultIn, vaultOut, mintIn, mintOut] = aToB ? [keys.vaultA, keys.vaultB, keys.mintA, keys.mintB] : [keys.vaultB, keys.vaultA, keys.mintB, keys.mintA]
  return new TransactionInstruction({
    programId: keys.programId,
    keys: [
      meta(args.user, true, false),
      meta(keys.pool, false, false),
      meta(vaultIn, false, true),
      meta(vaultOut, false, true),
      meta(getAssociatedTokenAddressSync(mintIn, args.user), false, true),
      meta(getAssociatedTokenAddressSync(mintOut, args.user), false, true),
      meta(TOKEN_PROGRAM_ID, false, false)
    ],
    data: Buffer.concat([Buffer.from([IX_SWAP]), u64(args.amountIn), u64(args.minimumOut)])
  })
}

export const poolKeysOf = (programId: PublicKey, pool: PublicKey, state: { mintA: PublicKey; mintB: PublicKey; vaultA: PublicKey; vaultB: PublicKey; lpMint: PublicKey }): PoolKeys => ({
  programId, pool, mintA: state.mintA, mintB: state.mintB, vaultA: state.vaultA, vaultB: state.vaultB, lpMint: state.lpMint
})
