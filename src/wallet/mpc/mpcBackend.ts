/**
 * Key backend `mpc`: the coordinator of 2-of-3 FROST(Ed25519, SHA-512). Creating a wallet runs
 * distributed key generation on all three nodes (it relays only public broadcasts and packages sealed
 * for their recipient); signing asks the running nodes for nonce commitments, takes the first two,
 * collects their signature shares, checks each share and the aggregate signature against the group
 * key, and answers the signature. The coordinator never holds an open share, and the group secret never
 * exists: each node's share comes back sealed under that node's own secret and is kept in `sealed_keys`
 * (store `mpc-node-<n>`), handed back to its node with each signing call.
 */
import { ed25519_FROST } from "@noble/curves/ed25519.js"
import { randomUUID } from "node:crypto"
import { type CustodyBackend, KeyUnavailable } from "../custodyBackend.js"
import type { DKG_Round1, NonceCommitments } from "./frostCodec.js"
import { groupPublicKeyOf } from "./frostCodec.js"
import type { SealedRecords } from "../sealedKeyRepo.js"
import type { MpcCluster } from "./mpcCluster.js"
import { MPC_SIGNERS, type ShareRecord } from "./mpcNode.js"

const F = ed25519_FROST
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))
const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

const storeOf = (node: number) => `mpc-node-${node}` as const

export const mpcBackend = (cluster: MpcCluster, records: SealedRecords): CustodyBackend => {
  /** A node's stored record of the wallet; null lets a node read its own legacy file (wallets made before the database held shares). */
  const shareOf = async (node: number, walletId: string) => ((await records.get(storeOf(node), walletId)) as ShareRecord | undefined) ?? null

  const create = async (walletId: string): Promise<Uint8Array> => {
    const nodes = cluster.indexes
    const stopped = nodes.filter((i) => !cluster.isRunning(i))
    if (stopped.length > 0) throw new KeyUnavailable(`mpc key generation needs all 3 nodes; stopped: ${stopped.map((i) => `node ${i}`).join(", ")}`)
    try {
      const identity = await Promise.all(nodes.map((i) => cluster.call(i, (node) => node.identity())))
      const transportKeys = Object.fromEntries(identity.map((id) => [id.identifier, id.transportKey]))
      const identifiers = identity.map((id) => id.identifier)
      const round1: Array<DKG_Round1> = await Promise.all(nodes.map((i) => cluster.call(i, (node) => node.dkgRound1(walletId))))
      const othersOf = (position: number) => round1.filter((_, j) => j !== position)
      const sealed = (await Promise.all(nodes.map((i, p) => cluster.call(i, (node) => node.dkgRound2(walletId, othersOf(p), transportKeys))))).flat()
      const results = await Promise.all(
        nodes.map((i, p) => cluster.call(i, (node) => node.dkgRound3(walletId, othersOf(p), sealed.filter((s) => s.to === identifiers[p]), transportKeys)))
      )
      const groupKey = groupPublicKeyOf(results[0]!.public)
      if (!results.every((result) => sameBytes(groupPublicKeyOf(result.public), groupKey))) throw new Error("the nodes derived different group keys")
      for (const [p, result] of results.entries()) {
        if (!(await records.insert(storeOf(nodes[p]!), walletId, result.share))) throw new Error(`node ${nodes[p]} already has a share of wallet ${walletId}`)
      }
      return groupKey
    } catch (error) {
      await Promise.allSettled(nodes.map((i) => cluster.call(i, (node) => node.dkgAbort(walletId))))
      throw new KeyUnavailable(`mpc key generation failed: ${reason(error)}`)
    }
  }

  const sign = async (walletId: string, message: Uint8Array): Promise<Uint8Array> => {
    const running = cluster.indexes.filter((i) => cluster.isRunning(i))
    const needed = MPC_SIGNERS.min
    if (running.length < needed) {
      throw new KeyUnavailable(`mpc signing needs ${needed} of 3 nodes; only ${running.length} running (${running.map((i) => `node ${i}`).join(", ") || "none"})`)
    }
    const sessionId = randomUUID()
    // Round 1: commitments from every running node; the first two that answer sign.
    const answers = await Promise.allSettled(
      running.map(async (i) => {
        const share = await shareOf(i, walletId)
        return cluster.call(i, async (node) => ({ index: i, share, commitments: await node.commit(walletId, sessionId, share) }))
      })
    )
    const committed = answers.flatMap((a) => (a.status === "fulfilled" ? [a.value] : [])).slice(0, needed)
    if (committed.length < needed) {
      const failures = answers.flatMap((a) => (a.status === "rejected" ? [reason(a.reason)] : []))
      throw new KeyUnavailable(`mpc signing needs ${needed} of 3 nodes; only ${committed.length} answered (${failures.join("; ")})`)
    }
    const commitmentList: Array<NonceCommitments> = committed.map((c) => c.commitments)
    try {
      const pub = await cluster.call(committed[0]!.index, (node) => node.publicPackage(walletId, committed[0]!.share))
      const shares = await Promise.all(
        committed.map((c) => cluster.call(c.index, async (node) => [c.commitments.identifier, await node.signShare(walletId, sessionId, commitmentList, message, c.share)] as const))
      )
      for (const [identifier, share] of shares) {
        if (!F.verifyShare(pub, commitmentList, message, identifier, share)) throw new Error(`the signature share of participant ${identifier} is invalid`)
      }
      const signature = F.aggregate(pub, commitmentList, message, Object.fromEntries(shares))
      if (!F.verify(signature, message, groupPublicKeyOf(pub))) throw new Error("the aggregate signature does not verify")
      return signature
    } catch (error) {
      throw new KeyUnavailable(`mpc signing failed: ${reason(error)}`)
    }
  }

  return { backend: "mpc", provider: "mpc", create, sign, close: async () => {} }
}
