/**
 * The operations of one mpc node as plain request/answer calls, the same whether the node is an actor
 * in this process (localNodeApi) or a separate process reached over HTTP (remoteNodeApi in
 * nodeClient.ts). Every argument and answer is public FROST data, a package sealed for its recipient,
 * or a node's share record sealed under that node's own secret; nothing here carries an open share.
 */
import type { SealedPackage } from "./dkgChannel.js"
import type { DKG_Round1, FrostPublic, NonceCommitments } from "./frostCodec.js"
import type { MpcNode, ShareRecord } from "./mpcNode.js"

export interface MpcNodeApi {
  readonly identity: () => Promise<{ readonly identifier: string; readonly transportKey: Uint8Array }>
  readonly dkgRound1: (walletId: string) => Promise<DKG_Round1>
  readonly dkgRound2: (walletId: string, others: ReadonlyArray<DKG_Round1>, transportKeys: Readonly<Record<string, Uint8Array>>) => Promise<Array<SealedPackage>>
  readonly dkgRound3: (
    walletId: string,
    others: ReadonlyArray<DKG_Round1>,
    received: ReadonlyArray<SealedPackage>,
    transportKeys: Readonly<Record<string, Uint8Array>>
  ) => Promise<{ readonly public: FrostPublic; readonly share: ShareRecord }>
  readonly dkgAbort: (walletId: string) => Promise<void>
  /** `share`: the node's sealed record as the coordinator stored it (null: the node's own legacy file). */
  readonly commit: (walletId: string, sessionId: string, share: ShareRecord | null) => Promise<NonceCommitments>
  readonly signShare: (
    walletId: string,
    sessionId: string,
    commitmentList: ReadonlyArray<NonceCommitments>,
    message: Uint8Array,
    share: ShareRecord | null
  ) => Promise<Uint8Array>
  readonly publicPackage: (walletId: string, share: ShareRecord | null) => Promise<FrostPublic>
}

export type MpcNodeOperation = keyof MpcNodeApi

export const MPC_NODE_OPERATIONS: ReadonlyArray<MpcNodeOperation> = [
  "identity",
  "dkgRound1",
  "dkgRound2",
  "dkgRound3",
  "dkgAbort",
  "commit",
  "signShare",
  "publicPackage"
]

/**
 * The node in this process. Each method runs the node's synchronous work at once (before its first
 * await), so an actor that calls one operation at a time keeps the node's state serial.
 */
export const localNodeApi = (node: MpcNode): MpcNodeApi => ({
  identity: async () => ({ identifier: node.identifier, transportKey: node.transportKey }),
  dkgRound1: async (walletId) => node.dkgRound1(walletId),
  dkgRound2: async (walletId, others, transportKeys) => node.dkgRound2(walletId, others, transportKeys),
  dkgRound3: async (walletId, others, received, transportKeys) => node.dkgRound3(walletId, others, received, transportKeys),
  dkgAbort: async (walletId) => node.dkgAbort(walletId),
  commit: async (walletId, sessionId, share) => node.commit(walletId, sessionId, share),
  signShare: async (walletId, sessionId, commitmentList, message, share) => node.signShare(walletId, sessionId, commitmentList, message, share),
  publicPackage: async (walletId, share) => node.publicPackage(walletId, share)
})
