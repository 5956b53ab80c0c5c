/**
 * The local ledger's fixed keypairs (src/protocols/amm/localPools.ts) take their public keys from
 * node:crypto: each is the keypair web3.js derives from the same seed, and signs what it verifies.
 */
import { Keypair } from "@solana/web3.js"
import { createHash, createPrivateKey, createPublicKey, sign, verify } from "node:crypto"
import { describe, expect, it } from "vitest"
import { localKeypair, SEED_AUTHORITY, TEST_MINT_KEYPAIRS } from "../../src/protocols/amm/localPools.js"

const seedOf = (label: string) => createHash("sha256").update(`agent-custody local ledger: ${label}`).digest()

describe("the local ledger's keypairs", () => {
  it("are web3.js' keypairs of their labels' seeds", () => {
    for (const label of ["seed authority", "mint USDC", "mint BONK", "lst liquid-staking", "lp amm-one SOL/USDC"]) {
      const derived = localKeypair(label)
      const reference = Keypair.fromSeed(seedOf(label))
      expect(derived.publicKey.toBase58()).toBe(reference.publicKey.toBase58())
      expect(Buffer.from(derived.secretKey).equals(Buffer.from(reference.secretKey))).toBe(true)
    }
    expect(SEED_AUTHORITY.publicKey.toBase58()).toBe(Keypair.fromSeed(seedOf("seed authority")).publicKey.toBase58())
    expect(TEST_MINT_KEYPAIRS.USDC.publicKey.toBase58()).toBe(Keypair.fromSeed(seedOf("mint USDC")).publicKey.toBase58())
  })

  it("sign what their public keys verify", () => {
    const message = Buffer.from("local ledger")
    const keypair = localKeypair("mint BONK")
    const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), keypair.secretKey.subarray(0, 32)]), format: "der", type: "pkcs8" })
    const publicKey = createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), keypair.publicKey.toBuffer()]), format: "der", type: "spki" })
    expect(verify(null, message, publicKey, sign(null, message, privateKey))).toBe(true)
  })
})
