/**
 * What every key backend must show: a wallet created over HTTP, funded, sends transfer_sol that
 * confirms on the ledger, and the signature on chain verifies against the wallet's public key.
 */
import { Connection, PublicKey, VersionedTransaction } from "@solana/web3.js"
import bs58 from "bs58"
import { createPublicKey, verify } from "node:crypto"
import { expect } from "vitest"
import { makeClient } from "../support/client.js"

const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex")

export const verifiesUnder = (publicKey: string, message: Uint8Array, signature: Uint8Array) =>
  verify(null, message, createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, bs58.decode(publicKey)]), format: "der", type: "spki" }), signature)

export const createFundedWallet = async (baseUrl: string, label: string, lamports = 1_000_000_000) => {
  const created = await makeClient(baseUrl).wallets.create({ body: { label, autoFund: true, fundLamports: lamports } })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  expect(created.body.data.funding).toMatchObject({ ok: true })
  return created.body.data as { id: string; publicKey: string; provider: string; keyProvenance: { backend: string; custody: string } }
}

export const transferSol = (baseUrl: string, walletId: string, destination: string, lamports: number) =>
  makeClient(baseUrl).transactions.create({ query: { waitMs: "30000" }, body: {
    walletId,
    type: "transfer_sol",
    protocol: "system-program",
    intent: { destination, lamports }
  } })

/** Sends a transfer and checks it confirmed, landed, and carries a signature valid under the wallet's key. */
export const expectTransferSignedBy = async (baseUrl: string, rpcUrl: string, wallet: { id: string; publicKey: string }) => {
  const destination = new PublicKey(bs58.encode(crypto.getRandomValues(new Uint8Array(32)))).toBase58()
  const sent = await transferSol(baseUrl, wallet.id, destination, 2_000_000)
  expect(sent.body.data?.status, JSON.stringify(sent.body)).toBe("confirmed")
  const signature = sent.body.data.signature as string
  const connection = new Connection(rpcUrl, "confirmed")
  expect(await connection.getBalance(new PublicKey(destination))).toBe(2_000_000)
  const reply = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getTransaction", params: [signature, { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 }] })
  })
  const landed = (await reply.json()) as { result: { transaction: [string, string] } | null }
  expect(landed.result).not.toBeNull()
  const wire = VersionedTransaction.deserialize(Buffer.from(landed.result!.transaction[0], "base64"))
  expect(wire.message.staticAccountKeys[0]!.toBase58()).toBe(wallet.publicKey)
  expect(bs58.encode(wire.signatures[0]!)).toBe(signature)
  expect(verifiesUnder(wallet.publicKey, wire.message.serialize(), wire.signatures[0]!)).toBe(true)
  return signature
}
