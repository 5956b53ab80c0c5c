// Balance and account reads by base58 key, straight from litesvm's native handle when it has one.
// litesvm's JS wrapper re-encodes the key with kit's BigInt base58 codec on every call (and the owner
// back again), which was the ledger's largest cost per transaction: every send reads the balances of
// all its keys before and after. Here a key is decoded once with bs58 and kept (a ledger sees few
// distinct keys), and owners are encoded once per program. Without the native handle (another litesvm
// version), reads go through the public API.
import type { Address } from "@solana/kit"
import bs58 from "bs58"
import type { LiteSVM } from "litesvm"
import { asBytes, type RawAccount } from "./accounts.js"

interface NativeAccount {
  lamports(): bigint
  owner(): Uint8Array
  data(): Uint8Array
  executable(): boolean
}

interface NativeSvm {
  getBalance(address: Uint8Array): bigint | null
  getAccount(address: Uint8Array): NativeAccount | null
}

const MAX_CACHED_KEYS = 100_000

const nativeOf = (svm: LiteSVM): NativeSvm | undefined => {
  const inner = (svm as unknown as { inner?: Partial<NativeSvm> }).inner
  return typeof inner?.getBalance === "function" && typeof inner.getAccount === "function" ? (inner as NativeSvm) : undefined
}

/** A memo that forgets everything when full (a ledger sees few distinct keys and programs). */
const boundedMemo = <V>(compute: (key: string) => V) => {
  const memo = new Map<string, V>()
  return (key: string): V => {
    let value = memo.get(key)
    if (value === undefined) {
      if (memo.size >= MAX_CACHED_KEYS) memo.clear()
      value = compute(key)
      memo.set(key, value)
    }
    return value
  }
}

export const makeAccountReads = (svm: LiteSVM) => {
  const native = nativeOf(svm)
  const bytesOf = boundedMemo((key) => {
    const bytes = bs58.decode(key)
    if (bytes.length !== 32) throw new Error(`not a 32-byte public key: ${key}`)
    return bytes
  })
  const ownerNameOf = boundedMemo((id) => bs58.encode(Buffer.from(id, "latin1")))
  const ownerName = (owner: Uint8Array) => ownerNameOf(Buffer.from(owner).toString("latin1"))

  const balanceOf = (key: string): number => {
    const balance = native === undefined ? svm.getBalance(key as Address) : native.getBalance(bytesOf(key))
    return balance === null ? 0 : Number(balance)
  }

  const readAccount = (key: string): RawAccount | null => {
    if (native === undefined) {
      const account = svm.getAccount(key as Address)
      if (!account.exists) return null
      return { lamports: account.lamports, owner: account.programAddress, executable: account.executable, data: asBytes(account.data) }
    }
    const account = native.getAccount(bytesOf(key))
    if (account === null) return null
    return { lamports: account.lamports(), owner: ownerName(account.owner()), executable: account.executable(), data: account.data() }
  }

  return { balanceOf, readAccount }
}
