// The ledger's fast account reads answer exactly what litesvm's public API answers.
import { address } from "@solana/kit"
import { Keypair } from "@solana/web3.js"
import { LiteSVM } from "litesvm"
import { describe, expect, it } from "vitest"
import { makeAccountReads } from "../../src/ledger/accountReads.js"

const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

describe("ledger account reads", () => {
  const svm = new LiteSVM()
  const funded = Keypair.generate().publicKey.toBase58()
  svm.airdrop(address(funded), 2_500_000n as never)
  const missing = Keypair.generate().publicKey.toBase58()
  const reads = makeAccountReads(svm)

  const publicRead = (key: string) => {
    const account = svm.getAccount(address(key))
    return account.exists
      ? { lamports: account.lamports, owner: account.programAddress, executable: account.executable, data: [...account.data] }
      : null
  }
  const fastRead = (key: string) => {
    const account = reads.readAccount(key)
    return account === null ? null : { ...account, data: [...account.data] }
  }

  it("reads a funded account, a program and a missing account as the public API does", () => {
    for (const key of [funded, TOKEN_PROGRAM, missing]) {
      expect(fastRead(key)).toEqual(publicRead(key))
      expect(reads.balanceOf(key)).toBe(Number(svm.getBalance(address(key)) ?? 0n))
    }
    expect(reads.balanceOf(funded)).toBe(2_500_000)
    expect(reads.readAccount(TOKEN_PROGRAM)?.executable).toBe(true)
    expect(reads.readAccount(missing)).toBeNull()
  })

  it("sees a balance change after a cached read, and refuses a key that is not 32 bytes", () => {
    expect(reads.balanceOf(funded)).toBe(2_500_000)
    svm.airdrop(address(funded), 1_000n as never)
    expect(reads.balanceOf(funded)).toBe(2_501_000)
    expect(() => reads.balanceOf("11111")).toThrow(/32-byte/)
  })
})
