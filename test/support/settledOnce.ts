/**
 * Transfers put in flight for a fault to hit (`startTransfers`), and the check after it: every one settled
 * (confirmed or failed, none stuck), each destination holds exactly its transfer's amount if it confirmed and
 * nothing if it failed (nothing paid twice, nothing paid by a failure), and the source paid exactly the confirmed
 * amounts and their fees.
 */
import { type Connection, Keypair, PublicKey } from "@solana/web3.js"
import { expect } from "vitest"
import { createWallet, submit, waitSettled } from "./transactions.js"

/** A funded wallet and `count` transfers of `lamports` from it, each to a new address, accepted (not waited for). */
export const startTransfers = async (baseUrl: string, connection: Connection, count: number, lamports: number) => {
  const wallet = await createWallet(baseUrl, 5_000_000_000)
  const sourceBefore = await connection.getBalance(new PublicKey(wallet.publicKey))
  const destinations = Array.from({ length: count }, () => Keypair.generate().publicKey.toBase58())
  const created = await Promise.all(
    destinations.map((destination) => submit(baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports } }))
  )
  expect(created.map((c) => c.status)).toEqual(Array(count).fill(201))
  const ids = created.map((c) => c.body.data.id as string)
  return { wallet, baseUrl, connection, source: wallet.publicKey, sourceBefore, lamports, ids, destinations }
}

export interface TransfersInFlight {
  readonly baseUrl: string
  readonly connection: Connection
  readonly source: string
  readonly sourceBefore: number
  readonly lamports: number
  /** The created transactions' ids and their destinations, in the same order. */
  readonly ids: ReadonlyArray<string>
  readonly destinations: ReadonlyArray<string>
  readonly withinMs: number
}

/** Asserts the above; returns how many confirmed. */
export const expectEachSettledOnce = async (transfers: TransfersInFlight): Promise<number> => {
  const { connection, lamports } = transfers
  const settled = await Promise.all(transfers.ids.map((id) => waitSettled(transfers.baseUrl, id, transfers.withinMs)))
  const statuses = settled.map((s) => s.body.data.status)
  expect(statuses.filter((status) => status !== "confirmed" && status !== "failed")).toEqual([])
  let confirmed = 0
  let fees = 0n
  for (const [index, answer] of settled.entries()) {
    const balance = await connection.getBalance(new PublicKey(transfers.destinations[index]!))
    if (answer.body.data.status === "confirmed") {
      confirmed += 1
      expect(balance).toBe(lamports)
      const landed = await connection.getTransaction(answer.body.data.signature!, { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
      expect(landed?.meta?.fee).toEqual(expect.any(Number))
      fees += BigInt(landed!.meta!.fee)
    } else {
      expect(balance).toBe(0)
    }
  }
  const sourceAfter = await connection.getBalance(new PublicKey(transfers.source))
  expect(BigInt(transfers.sourceBefore - sourceAfter)).toBe(BigInt(confirmed * lamports) + fees)
  return confirmed
}
