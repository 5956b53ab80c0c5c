/**
 * The nft_mint builder: the largest intent the schema accepts still fits one transaction with its compute
 * budget and both signatures, and the creators field round-trips.
 */
import { Keypair, Transaction } from "@solana/web3.js"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { MAX_NFT_CREATORS, NftMintIntent } from "../../schemas/intent.js"
import { withComputeBudget } from "../../src/pipeline/computeBudget.js"
import { buildNftMint, decodeCreators, encodeCreators, nftMintAccountSize } from "../../src/protocols/nft/nftMint.js"

/** Solana's packet limit for a whole serialized transaction. */
const PACKET_BYTES = 1232

describe("nft_mint builder", () => {
  it("fits the largest accepted intent (multi-byte text, four creators) in one transaction", () => {
    const wallet = Keypair.generate()
    const creators = Array.from({ length: MAX_NFT_CREATORS }, (_, i) => ({
      address: i === 0 ? wallet.publicKey.toBase58() : Keypair.generate().publicKey.toBase58(),
      verified: i === 0,
      share: 25
    }))
    // "é" is two UTF-8 bytes: 16 of them fill the 32-byte name
    const intent = Schema.decodeUnknownSync(NftMintIntent)({
      name: "é".repeat(16),
      symbol: "S".repeat(10),
      uri: `https://example.org/${"u".repeat(180)}`,
      sellerFeeBasisPoints: 10_000,
      creators
    })
    expect(() => Schema.decodeUnknownSync(NftMintIntent)({ ...intent, name: "é".repeat(17) })).toThrow(/1-32 bytes/)
    const result = buildNftMint({ wallet: wallet.publicKey, intent, rentExemptMinimum: 10_000_000n })
    if (Either.isLeft(result)) throw result.left
    const built = result.right
    const { instructions } = withComputeBudget("nft_mint", built.instructions, 1_000_000n)
    const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(...instructions)
    tx.sign(wallet, ...built.extraSigners)
    expect(tx.serialize().length).toBeLessThanOrEqual(PACKET_BYTES)
    expect(nftMintAccountSize(wallet.publicKey, intent)).toBeGreaterThan(500)
    expect(decodeCreators(encodeCreators(intent.creators))).toEqual(creators)
  })
})
