/**
 * The ceiling: the same number of SOL transfers straight to the ledger, with no service in between.
 * Transfers are built with web3.js and signed with node:crypto (serialized without re-verification),
 * all before the clock starts; then `clients` concurrent clients each send one (sendTransaction,
 * skipPreflight, maxRetries 0, as the service sends) and read getSignatureStatuses until it is there.
 */
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import { createPrivateKey, sign } from "node:crypto"
import { ledgerRpc, mapConcurrent } from "../../test/support/processes.js"
import { sleep } from "./stats.js"

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex")

export interface CeilingResult {
  readonly transfers: number
  readonly signPerSecond: number
  readonly elapsedMs: number
  readonly latenciesMs: ReadonlyArray<number>
}

export const runLedgerCeiling = async (rpcUrl: string, options: { transfers: number; clients: number; sources: number }): Promise<CeilingResult> => {
  const sources = Array.from({ length: options.sources }, () => Keypair.generate())
  await mapConcurrent(sources, 8, async (source) => {
    const signature = await ledgerRpc<string>(rpcUrl, "requestAirdrop", [source.publicKey.toBase58(), 5_000_000_000])
    for (;;) {
      const { value } = await ledgerRpc<{ value: Array<unknown> }>(rpcUrl, "getSignatureStatuses", [[signature]])
      if (value[0] !== null) return
      await sleep(50)
    }
  })
  const keys = sources.map((source) => createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, source.secretKey.subarray(0, 32)]), format: "der", type: "pkcs8" }))
  const destinations = Array.from({ length: 64 }, () => Keypair.generate().publicKey)
  const { value: latest } = await ledgerRpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(rpcUrl, "getLatestBlockhash", [
    { commitment: "confirmed" }
  ])

  const signStarted = performance.now()
  const wires = Array.from({ length: options.transfers }, (_, i) => {
    const source = sources[i % sources.length]!
    const transaction = new Transaction({ feePayer: source.publicKey, blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight }).add(
      SystemProgram.transfer({ fromPubkey: source.publicKey, toPubkey: destinations[i % destinations.length] as PublicKey, lamports: 1_000_000 + i })
    )
    const message = transaction.serializeMessage()
    transaction.addSignature(source.publicKey, sign(null, message, keys[i % keys.length]!))
    return transaction.serialize({ verifySignatures: false }).toString("base64")
  })
  const signPerSecond = options.transfers / ((performance.now() - signStarted) / 1000)

  const latenciesMs: Array<number> = []
  const started = performance.now()
  await mapConcurrent(wires, options.clients, async (wire) => {
    const t0 = performance.now()
    const signature = await ledgerRpc<string>(rpcUrl, "sendTransaction", [wire, { encoding: "base64", skipPreflight: true, maxRetries: 0 }])
    for (;;) {
      const { value } = await ledgerRpc<{ value: Array<{ err: unknown } | null> }>(rpcUrl, "getSignatureStatuses", [[signature]])
      const status = value[0]
      if (status !== null && status !== undefined) {
        if (status.err !== null) throw new Error(`ceiling transfer failed: ${JSON.stringify(status.err)}`)
        break
      }
      await sleep(10)
    }
    latenciesMs.push(performance.now() - t0)
  })
  return { transfers: options.transfers, signPerSecond, elapsedMs: performance.now() - started, latenciesMs }
}
