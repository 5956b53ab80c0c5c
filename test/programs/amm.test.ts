/**
 * The AMM program on litesvm directly: init_pool, add_liquidity (sqrt first, then proportional shares),
 * exact swaps in both directions, minimumOut enforced, remove_liquidity, and its refusals.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { OUTPUT_BELOW_MINIMUM } from "../../src/protocols/amm/errors.js"
import { addLiquidityInstruction, createPoolInstructions, type PoolKeys, removeLiquidityInstruction, swapInstruction } from "../../src/protocols/amm/instructions.js"
import { decodePoolState } from "../../src/protocols/amm/layout.js"
import { swapOutput } from "../../src/protocols/amm/math.js"
import { TestLedger } from "./ledger.js"

const AMM_SO = fileURLToPath(new URL("../../programs/dist/amm.so", import.meta.url))
const PROGRAM_ID = new PublicKey("Ammone1111111111111111111111111111111111111")

const setup = (feeBps = 30) => {
  const ledger = new TestLedger()
  ledger.addProgram(PROGRAM_ID, readFileSync(AMM_SO))
  const owner = ledger.payer
  const mints = [Keypair.generate(), Keypair.generate()]
  const rent = ledger.rentExempt(MINT_SIZE)
  for (const mint of mints) {
    expect(ledger.send([
      SystemProgram.createAccount({ fromPubkey: owner.publicKey, newAccountPubkey: mint.publicKey, lamports: Number(rent), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
      createInitializeMint2Instruction(mint.publicKey, 6, owner.publicKey, null),
      createAssociatedTokenAccountIdempotentInstruction(owner.publicKey, getAssociatedTokenAddressSync(mint.publicKey, owner.publicKey), owner.publicKey, mint.publicKey),
      createMintToInstruction(mint.publicKey, getAssociatedTokenAddressSync(mint.publicKey, owner.publicKey), owner.publicKey, 10_000_000_000_000n)
    ], [mint]).ok).toBe(true)
  }
  const lpMint = Keypair.generate()
  const { keys, instructions } = createPoolInstructions({ programId: PROGRAM_ID, payer: owner.publicKey, mintX: mints[0]!.publicKey, mintY: mints[1]!.publicKey, lpMint, feeBps, lpMintRent: rent })
  const created = ledger.send(instructions, [lpMint])
  const lpAccount = getAssociatedTokenAddressSync(keys.lpMint, owner.publicKey)
  ledger.send([createAssociatedTokenAccountIdempotentInstruction(owner.publicKey, lpAccount, owner.publicKey, keys.lpMint)])
  const amount = (account: PublicKey) => {
    const data = ledger.data(account)
    return data === undefined ? 0n : Buffer.from(data).readBigUInt64LE(64)
  }
  const mine = (mint: PublicKey) => amount(getAssociatedTokenAddressSync(mint, owner.publicKey))
  return { ledger, owner, keys, created, amount, mine, lpAccount }
}

const reserves = (amount: (a: PublicKey) => bigint, keys: PoolKeys) => [amount(keys.vaultA), amount(keys.vaultB)] as const

describe("AMM program", () => {
  it("creates a pool that records its mints, vaults, LP mint and fee", () => {
    const { created, ledger, keys } = setup(25)
    expect(created.ok).toBe(true)
    const state = decodePoolState(ledger.data(keys.pool)!)
    expect(state).toMatchObject({ feeBps: 25 })
    expect(state!.mintA.equals(keys.mintA) && state!.vaultB.equals(keys.vaultB) && state!.lpMint.equals(keys.lpMint)).toBe(true)
    expect(Buffer.compare(keys.mintA.toBuffer(), keys.mintB.toBuffer())).toBeLessThan(0)
  })

  it("mints sqrt(a*b) LP shares first, proportional shares after, and pays them back on remove", () => {
    const { ledger, owner, keys, amount, mine, lpAccount } = setup()
    expect(ledger.send([addLiquidityInstruction(keys, owner.publicKey, 4_000_000n, 9_000_000n, 1n)]).ok).toBe(true)
    expect(amount(lpAccount)).toBe(6_000_000n) // sqrt(4e6 * 9e6)
    expect(ledger.send([addLiquidityInstruction(keys, owner.publicKey, 2_000_000n, 4_500_000n, 1n)]).ok).toBe(true)
    expect(amount(lpAccount)).toBe(9_000_000n)
    expect(reserves(amount, keys)).toEqual([6_000_000n, 13_500_000n])
    // asking for more shares than the deposit gives is refused on chain
    expect(ledger.send([addLiquidityInstruction(keys, owner.publicKey, 1_000_000n, 1_000_000n, 5_000_000n)]).customError).toBe(7019)

    const beforeA = mine(keys.mintA)
    expect(ledger.send([removeLiquidityInstruction(keys, owner.publicKey, 3_000_000n, 1n, 1n)]).ok).toBe(true)
    expect(amount(lpAccount)).toBe(6_000_000n)
    expect(mine(keys.mintA) - beforeA).toBe(2_000_000n) // a third of the shares, a third of each reserve
    expect(reserves(amount, keys)).toEqual([4_000_000n, 9_000_000n])
  })

  it("swaps exactly the constant-product output after the fee, both ways, and refuses below minimumOut", () => {
    const { ledger, owner, keys, amount, mine } = setup(30)
    ledger.send([addLiquidityInstruction(keys, owner.publicKey, 1_000_000_000n, 150_000_000_000n, 1n)])
    const [ra, rb] = reserves(amount, keys)
    const expected = swapOutput(10_000_000n, ra, rb, 30)
    const beforeB = mine(keys.mintB)
    const swap = (inputMint: PublicKey, amountIn: bigint, minimumOut: bigint) =>
      ledger.send([swapInstruction({ keys, user: owner.publicKey, inputMint, amountIn, minimumOut })])
    expect(swap(keys.mintA, 10_000_000n, expected + 1n).customError).toBe(OUTPUT_BELOW_MINIMUM)
    expect(swap(keys.mintA, 10_000_000n, expected).ok).toBe(true)
    expect(mine(keys.mintB) - beforeB).toBe(expected)
    expect(reserves(amount, keys)).toEqual([ra + 10_000_000n, rb - expected])

    const [ra2, rb2] = reserves(amount, keys)
    const back = swapOutput(1_000_000_000n, rb2, ra2, 30)
    expect(swap(keys.mintB, 1_000_000_000n, back).ok).toBe(true)
    expect(reserves(amount, keys)).toEqual([ra2 - back, rb2 + 1_000_000_000n])
    // large amounts need the 128-bit product: still exact
    const [ra3, rb3] = reserves(amount, keys)
    expect(swap(keys.mintA, 5_000_000_000_000n, 1n).ok).toBe(true)
    expect(reserves(amount, keys)).toEqual([ra3 + 5_000_000_000_000n, rb3 - swapOutput(5_000_000_000_000n, ra3, rb3, 30)])
  })

  it("refuses a swap against the wrong vaults, a second pool for the pair, and a fee above 1000 bps", () => {
    const { ledger, owner, keys } = setup()
    ledger.send([addLiquidityInstruction(keys, owner.publicKey, 1_000_000n, 1_000_000n, 1n)])
    const wrong = swapInstruction({ keys: { ...keys, vaultB: keys.vaultA }, user: owner.publicKey, inputMint: keys.mintA, amountIn: 1_000n, minimumOut: 0n })
    expect(ledger.send([wrong]).customError).toBe(7013)
    const again = createPoolInstructions({ programId: PROGRAM_ID, payer: owner.publicKey, mintX: keys.mintA, mintY: keys.mintB, lpMint: Keypair.generate(), feeBps: 30, lpMintRent: 0n })
    expect(ledger.send([again.instructions.at(-1)!]).customError).toBe(7005)
    const tooHigh = new TransactionInstruction({ ...again.instructions.at(-1)!, data: Buffer.from([0, 0xe9, 0x03]) })
    expect(ledger.send([tooHigh]).customError).toBe(7010)
  })
})
