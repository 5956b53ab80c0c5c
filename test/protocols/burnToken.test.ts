import { decodeBurnCheckedInstruction, getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { Keypair } from "@solana/web3.js"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { BurnTokenIntent } from "../../schemas/intent.js"
import { buildBurnToken } from "../../src/protocols/splToken/burnToken.js"
import type { MintFacts } from "../../src/protocols/splToken/splToken.js"

const wallet = Keypair.generate().publicKey
const mint = Keypair.generate().publicKey
const mintFacts: MintFacts = { programId: TOKEN_PROGRAM_ID.toBase58(), decimals: 6, mintAuthority: null }
const intent = Schema.decodeUnknownSync(BurnTokenIntent)({ mint: mint.toBase58(), amount: "400" })
const build = (chain: { readonly mint: MintFacts; readonly tokenBalance: bigint | null }) => buildBurnToken({ wallet, intent, chain })
const refusal = (chain: { readonly mint: MintFacts; readonly tokenBalance: bigint | null }) =>
  Either.match(build(chain), { onLeft: (error) => ({ field: error.field, message: error.message }), onRight: () => undefined })

describe("burn_token", () => {
  it("burns the amount from the wallet's associated token account, the wallet its authority", () => {
    const built = Either.getOrThrow(build({ mint: mintFacts, tokenBalance: 400n }))
    expect(built.instructions).toHaveLength(1)
    const burn = decodeBurnCheckedInstruction(built.instructions[0]!)
    expect(burn.keys.account.pubkey.equals(getAssociatedTokenAddressSync(mint, wallet))).toBe(true)
    expect(burn.keys.mint.pubkey.equals(mint)).toBe(true)
    expect(burn.keys.owner.pubkey.equals(wallet)).toBe(true)
    expect(burn.data).toMatchObject({ amount: 400n, decimals: 6 })
    expect(built.facts).toMatchObject({ destination: null, tokenMint: mint.toBase58(), tokenAmount: 400n, amountLamports: null })
  })

  it("refuses a wallet without the token account, too few tokens, and a mint of another program", () => {
    expect(refusal({ mint: mintFacts, tokenBalance: null })).toEqual({ field: "mint", message: `wallet has no token account for mint ${mint.toBase58()}` })
    expect(refusal({ mint: mintFacts, tokenBalance: 399n })).toEqual({
      field: "amount",
      message: `insufficient token balance: have 399, need 400 of mint ${mint.toBase58()}`
    })
    expect(refusal({ mint: { ...mintFacts, programId: TOKEN_2022_PROGRAM_ID.toBase58() }, tokenBalance: 400n })?.field).toBe("mint")
  })
})
