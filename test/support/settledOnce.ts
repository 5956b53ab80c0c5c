/**
 * The check after a fault hit transfers in flight: every one settled (confirmed or failed, none stuck), each
 * destination holds exactly its transfer's amount if it confirmed and nothing if it failed (nothing paid twice,
 * nothing paid by a failure), and the source paid exactly the confirmed amounts and their fees.
 */
import { type Connection, PublicKey } from "@solana/web3.js"
import { expect } from "vitest"
import { waitSettled } from "./transactions.js"

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
