// Test helper: a litesvm ledger driven with @solana/web3.js instructions (bridged as wire bytes).
import { address, getTransactionDecoder, lamports } from "@solana/kit"
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js"
import { FailedTransactionMetadata, LiteSVM } from "litesvm"

export interface SendResult {
  readonly ok: boolean
  readonly logs: ReadonlyArray<string>
  /** The custom program error code, when the failure is one. */
  readonly customError: number | undefined
  /** Readable failure, for assertions on non-custom errors. */
  readonly failure: string | undefined
}

export class TestLedger {
  readonly svm = new LiteSVM()
  readonly payer = Keypair.generate()

  constructor() {
    this.fund(this.payer.publicKey, 100_000_000_000n)
  }

  addProgram(programId: PublicKey, bytes: Uint8Array): void {
    this.svm.addProgram(address(programId.toBase58()), bytes)
  }

  fund(key: PublicKey, amount: bigint): void {
    this.svm.airdrop(address(key.toBase58()), lamports(amount))
  }

  newFundedKeypair(amount = 10_000_000_000n): Keypair {
    const keypair = Keypair.generate()
    this.fund(keypair.publicKey, amount)
    return keypair
  }

  balance(key: PublicKey): bigint {
    const account = this.svm.getAccount(address(key.toBase58()))
    return account.exists ? BigInt(account.lamports) : 0n
  }

  data(key: PublicKey): Uint8Array | undefined {
    const account = this.svm.getAccount(address(key.toBase58()))
    return account.exists ? new Uint8Array(account.data) : undefined
  }

  rentExempt(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size))
  }

  /** Sends one transaction paid by `payer` (which must be among `signers` or is added). */
  send(instructions: ReadonlyArray<TransactionInstruction>, signers: ReadonlyArray<Keypair> = [], payer: Keypair = this.payer): SendResult {
    const tx = new Transaction()
    tx.recentBlockhash = this.svm.latestBlockhash()
    tx.feePayer = payer.publicKey
    tx.add(...instructions)
    const unique = new Map([payer, ...signers].map((k) => [k.publicKey.toBase58(), k]))
    tx.sign(...unique.values())
    const result = this.svm.sendTransaction(getTransactionDecoder().decode(tx.serialize()))
    // A fresh blockhash lets the next identical transaction through.
    this.svm.expireBlockhash()
    if (result instanceof FailedTransactionMetadata) {
      const err = result.err()
      // litesvm does not export its error classes: tell them apart by shape.
      const inner = typeof err === "object" && "index" in err && "err" in err ? err.err() : undefined
      return {
        ok: false,
        logs: result.meta().logs(),
        customError: typeof inner === "object" && "code" in inner ? inner.code : undefined,
        failure: result.toString()
      }
    }
    return { ok: true, logs: result.logs(), customError: undefined, failure: undefined }
  }

  /** Moves the ledger clock's unix timestamp (and slot) forward. */
  setUnixTimestamp(unixTimestamp: bigint): void {
    const clock = this.svm.getClock()
    clock.unixTimestamp = unixTimestamp
    clock.slot = clock.slot + 1n
    this.svm.setClock(clock)
  }

  unixTimestamp(): bigint {
    return this.svm.getClock().unixTimestamp
  }
}

export const ESCROW_PROGRAM_ID = new PublicKey("Escrow1111111111111111111111111111111111111")
