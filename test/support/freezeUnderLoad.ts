/**
 * The kill switch under load (issue 34 item 3), shared by the in-process and the wallet-engine tests: 100
 * transfers in flight on a few wallets, a freeze issued while they run, then every one followed to its end.
 * What a user checks: no signature made after the freeze committed (each `transaction.signed` event carries
 * when the key signed, under the freeze lock), every unsigned transfer failed naming the freeze, and the
 * chain received exactly what confirmed.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { expect } from "vitest"
import { makeClient } from "./client.js"
import { createWallet, submit, waitTerminal } from "./transactions.js"

export interface FreezeLoadOptions {
  readonly baseUrl: string
  readonly rpcUrl: string
  readonly headers: Record<string, string>
  /** Runs one SQL query on the service's database. */
  readonly query: (text: string, values: Array<unknown>) => Promise<ReadonlyArray<Record<string, unknown>>>
  /** What to freeze: the tenant of `headers`, or the first wallet. */
  readonly scope: "tenant" | "wallet"
  readonly transfers?: number
}

export const freezeUnderLoad = async (options: FreezeLoadOptions) => {
  const count = options.transfers ?? 100
  const client = makeClient(options.baseUrl, options.headers)
  const wallets = await Promise.all([0, 1, 2, 3].map(() => createWallet(options.baseUrl, 2_000_000_000, options.headers)))
  const frozenWallets = options.scope === "wallet" ? [wallets[0].id] : wallets.map((wallet) => wallet.id)
  const lamports = 1_000_000

  let issued: Promise<Awaited<ReturnType<typeof client.risk.freeze>>> | undefined
  const created = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const wallet = wallets[index % wallets.length]
      const destination = Keypair.generate().publicKey.toBase58()
      const answer = await submit(options.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports } }, options.headers)
      // The freeze goes out once half of the transfers were accepted: the others are still being sent, and the
      // accepted ones are at every stage of the pipeline.
      if (index === Math.floor(count / 2) && issued === undefined) {
        issued = client.risk.freeze({ body: options.scope === "tenant" ? { scope: "tenant", reason: "incident drill" } : { scope: "wallet", targetId: wallets[0].id, reason: "incident drill" } })
      }
      return { walletId: wallet.id, destination, answer }
    })
  )
  const frozen = await (issued ?? client.risk.freeze({ body: { scope: "tenant", reason: "incident drill" } }))
  expect(frozen.status).toBe(201)
  const freeze = frozen.data
  if (freeze === undefined) throw new Error(`the freeze failed: ${JSON.stringify(frozen.body)}`)
  const frozenAt = Date.parse(freeze.frozenAt)

  // Refused at create (after the commit): 403 naming the freeze; accepted ones are followed to their end.
  const accepted = created.filter((entry) => entry.answer.status === 201)
  for (const refused of created.filter((entry) => entry.answer.status !== 201)) {
    expect(refused.answer.status).toBe(403)
    expect(refused.answer.body.error).toContain(freeze.id)
  }
  // Followed to confirmed or failed (a loaded machine may take longer than one wait's minute for the last of them).
  const terminal = async (txId: string) => {
    for (let round = 0; ; round++) {
      const tx = (await waitTerminal(options.baseUrl, txId, options.headers)).data
      if (tx.status === "confirmed" || tx.status === "failed" || round >= 4) return tx
    }
  }
  const finals = await Promise.all(accepted.map(async (entry) => ({ ...entry, tx: await terminal(entry.answer.data?.id ?? "") })))

  const signedRows = await options.query(
    "SELECT tx_id::text AS tx_id, metadata->>'signedAt' AS signed_at FROM audit_events WHERE event_type = 'transaction.signed' AND tx_id = ANY($1::uuid[])",
    [finals.map((entry) => entry.tx.id)]
  )
  const signedAt = new Map(signedRows.map((row) => [String(row.tx_id), Date.parse(String(row.signed_at))]))
  let failedByFreeze = 0
  for (const entry of finals) {
    const signed = signedAt.get(entry.tx.id)
    const inScope = frozenWallets.includes(entry.walletId)
    if (signed !== undefined && inScope) expect(signed, `transaction ${entry.tx.id} was signed after the freeze committed`).toBeLessThan(frozenAt)
    if (entry.tx.status === "confirmed") {
      expect(signed).toBeDefined()
      continue
    }
    // Nothing else fails these transfers: an unsigned one of the scope failed naming the freeze.
    const seen = `${entry.tx.id}: ${entry.tx.status} ${entry.tx.errorCode ?? ""} ${entry.tx.error ?? ""}`
    expect(inScope, seen).toBe(true)
    expect(entry.tx, seen).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })
    expect(entry.tx.error).toContain(freeze.id)
    expect(signed).toBeUndefined()
    failedByFreeze++
  }
  expect(failedByFreeze + created.length - accepted.length).toBeGreaterThan(0)

  // The chain received exactly the confirmed transfers.
  const connection = new Connection(options.rpcUrl, "confirmed")
  const confirmed = finals.filter((entry) => entry.tx.status === "confirmed")
  const received = await Promise.all(finals.map((entry) => connection.getBalance(new PublicKey(entry.destination))))
  expect(received.reduce((sum, value) => sum + value, 0)).toBe(confirmed.length * lamports)
  return { freeze, wallets, confirmed: confirmed.length, failedByFreeze, refusedAtCreate: created.length - accepted.length }
}
