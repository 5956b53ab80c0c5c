/**
 * Shared setup of the escrow tests: a ledger with programs/dist/escrow.so loaded, the service on it,
 * funded parties, helper calls over HTTP and exact on-chain reads (balances, fees, escrow state).
 */
import { Connection, PublicKey } from "@solana/web3.js"
import { LOCAL_ESCROW_PROGRAM_ID } from "../../src/config.js"
import { decodeEscrowState, ESCROW_ACCOUNT_SIZE, findEscrowAddress } from "../../src/protocols/escrow/index.js"
import { startTestLedger } from "../support/ledger.js"
import type { TransactionEncoded } from "../../schemas/transaction.js"
import { defined } from "../support/defined.js"
import { api, type ApiAnswer, type RunningService, startService } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"

export const PROGRAM_ID = new PublicKey(LOCAL_ESCROW_PROGRAM_ID)

export interface Party {
  readonly id: string
  readonly publicKey: string
}

export interface EscrowEnv {
  readonly ledger: Awaited<ReturnType<typeof startTestLedger>>
  readonly service: RunningService
  readonly connection: Connection
  /** getMinimumBalanceForRentExemption(272): what the creator pays on top of the amount */
  readonly escrowRent: number
}

export const startEscrowEnv = async (): Promise<EscrowEnv> => {
  const ledger = await startTestLedger({ escrow: true })
  // CHAIN_RPC_URL is set, so escrow is configured only through ESCROW_PROGRAM_ID (as on a real cluster).
  const service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: { ESCROW_PROGRAM_ID: LOCAL_ESCROW_PROGRAM_ID, API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000" }
  })
  const connection = new Connection(ledger.rpcUrl, "confirmed")
  const escrowRent = await connection.getMinimumBalanceForRentExemption(ESCROW_ACCOUNT_SIZE)
  return { ledger, service, connection, escrowRent }
}

export const stopEscrowEnv = async (env: EscrowEnv | undefined) => {
  await env?.service.stop()
  await env?.ledger.close()
}

export interface Parties {
  readonly creator: Party
  readonly counterparty: Party
  readonly arbiter: Party
  readonly feeRecipient: Party
}

/** Three funded wallets (creator, counterparty, arbiter) and a funded fee recipient. */
export const createParties = async (env: EscrowEnv): Promise<Parties> => {
  const [creator, counterparty, arbiter, feeRecipient] = await Promise.all([
    createWallet(env.service.baseUrl, 5_000_000_000),
    createWallet(env.service.baseUrl, 1_000_000_000),
    createWallet(env.service.baseUrl, 1_000_000_000),
    createWallet(env.service.baseUrl, 1_000_000_000)
  ])
  return { creator, counterparty, arbiter, feeRecipient }
}

let nextId = BigInt(Date.now()) * 1000n
/** A numeric escrow id no other test uses (audit filters by it). */
export const freshEscrowId = () => (nextId++).toString()

/** POST a helper and wait (server side) until the transaction settles. */
export const helper = (env: EscrowEnv, path: string, body: Record<string, unknown>) =>
  api<TransactionEncoded>(env.service.baseUrl, "POST", `/api/v1/escrow/${path}?waitMs=20000`, body)

/** POST /transactions of protocol escrow and wait until it settles. */
export const escrowTx = (env: EscrowEnv, walletId: string, type: string, intent: Record<string, unknown>) =>
  submit(env.service.baseUrl, { walletId, type, protocol: "escrow", intent }, undefined, "?waitMs=20000")

export const balance = (env: EscrowEnv, address: string) => env.connection.getBalance(new PublicKey(address), "confirmed")

export const balances = async (env: EscrowEnv, addresses: ReadonlyArray<string>) => Promise.all(addresses.map((a) => balance(env, a)))

/** The network fee the ledger charged a confirmed transaction (paid by its signing wallet). */
export const networkFee = async (env: EscrowEnv, signature: string) => {
  const tx = await env.connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
  if (tx?.meta === null || tx?.meta === undefined) throw new Error(`transaction ${signature} not found`)
  return tx.meta.fee
}

export const escrowAddressOf = (creator: string, escrowId: string) =>
  findEscrowAddress(PROGRAM_ID, new PublicKey(creator), BigInt(escrowId)).address

export const escrowState = async (env: EscrowEnv, creator: string, escrowId: string) => {
  const account = await env.connection.getAccountInfo(escrowAddressOf(creator, escrowId), "confirmed")
  if (account === null) throw new Error(`escrow ${escrowId} not found`)
  return decodeEscrowState(account.data)
}

/** Expects a confirmed transaction and returns its record. */
export const confirmedTx = (response: ApiAnswer<TransactionEncoded | null>) => {
  const record = response.body.data
  if (record?.status !== "confirmed") {
    throw new Error(`expected confirmed, got ${JSON.stringify({ status: response.status, error: response.body.error, data: record?.status })}`)
  }
  return { ...record, signature: defined(record.signature, "the signature of a confirmed transaction") }
}

export const createBody = (parties: Parties, escrowId: string, amount: number, extra: Record<string, unknown> = {}) => ({
  walletId: parties.creator.id,
  escrowNumericId: escrowId,
  creator: parties.creator.publicKey,
  counterparty: parties.counterparty.publicKey,
  arbiter: parties.arbiter.publicKey,
  feeRecipient: parties.feeRecipient.publicKey,
  amount: String(amount),
  deadlineUnixSec: Math.floor(Date.now() / 1000) + 3600,
  ...extra
})
