/**
 * Confirmed position indexing and query_positions for liquid staking: a confirmed stake shows a stake position
 * holding the wallet's LST, valued at the pool's live rate (lamports) and at the oracle's SOL price (USD); an
 * unstake updates it, and unstaking the rest removes it. GET /wallets/<id>/positions answers what a
 * query_positions intent does; it also lists token positions (valued at the oracle) and the lamports an open
 * escrow the wallet funded locks.
 */
import { getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { NATIVE_MINT } from "@solana/spl-token"
import { LOCAL_ESCROW_PROGRAM_ID } from "../../src/config.js"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { feedBySymbol } from "../../src/protocols/oracle/feeds.js"
import { decodeStakePool, stakePoolAddress } from "../../src/protocols/staking/layout.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import type { Position } from "../../src/positions/walletPositions.js"

const env = useServiceWithLedger({
  ledger: { amm: true, staking: true, escrow: true },
  env: {
    LIQUID_STAKING_PROGRAM_ID: LOCAL_LIQUID_STAKING_PROGRAM_ID, AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"],
    ESCROW_PROGRAM_ID: LOCAL_ESCROW_PROGRAM_ID
  }
})

const readPool = async () => {
  const connection = new Connection(env.ledger.rpcUrl, "confirmed")
  const state = decodeStakePool((await connection.getAccountInfo(stakePoolAddress(new PublicKey(LOCAL_LIQUID_STAKING_PROGRAM_ID))))!.data)!
  const mint = await connection.getAccountInfo(state.lstMint)
  return { ...state, supply: mint!.data.readBigUInt64LE(36) }
}

const lstBalance = async (owner: string, mint: PublicKey) => {
  const info = await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(getAssociatedTokenAddressSync(mint, new PublicKey(owner)))
  return info === null ? 0n : info.data.readBigUInt64LE(64)
}

const run = async (body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body.data
}

const stakePositionsOf = async (walletId: string) => {
  const response = await api<{ readonly positions: ReadonlyArray<Position> }>(env.service.baseUrl, "GET", `/api/v1/wallets/${walletId}/positions`)
  expect(response.status).toBe(200)
  return response.body.data.positions.filter((p) => p.type === "stake")
}

/** lamports at the seeded SOL price (150 USD at exponent -8), as the 6-place USD string positions answer. */
const usdOf = (lamports: bigint) => {
  const sol = feedBySymbol("SOL")!
  const micro = (lamports * sol.seedPrice * 1_000_000n) / 10n ** BigInt(9 - sol.seedExponent)
  return `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, "0")}`
}

describe("stake positions", () => {
  it("indexes a confirmed stake, values it at the pool's rate and the oracle, and follows unstakes to zero", async () => {
    const wallet = await createWallet(env.service.baseUrl, 4_000_000_000)
    const staked = await run({ walletId: wallet.id, type: "stake", protocol: "liquid-staking", intent: { amount: "1500000000" } })
    expect(staked.status).toBe("confirmed")
    const pool = await readPool()
    const lst = await lstBalance(wallet.publicKey, pool.lstMint)
    expect(lst).toBeGreaterThan(0n)

    const worth = (lst * pool.totalLamports) / pool.supply
    const [position] = await stakePositionsOf(wallet.id)
    expect(position).toEqual({
      protocol: "liquid-staking", type: "stake", amount: lst.toString(), token: pool.lstMint.toBase58(),
      valueLamports: Number(worth), value: usdOf(worth), address: stakePoolAddress(new PublicKey(LOCAL_LIQUID_STAKING_PROGRAM_ID)).toBase58()
    })
    // the LST is shown once, as the stake, not again as a plain token
    const all = (await api<{ readonly positions: ReadonlyArray<Position> }>(env.service.baseUrl, "GET", `/api/v1/wallets/${wallet.id}/positions`)).body.data.positions
    expect(all.filter((p) => p.token === pool.lstMint.toBase58())).toHaveLength(1)
    // native SOL in lamports: a JSON integer, as every lamport amount (a token's amount stays a decimal string)
    const native = all.find((p) => p.type === "native")
    expect(native).toMatchObject({ protocol: "system-program", token: "SOL", amount: expect.any(Number) })
    expect(native!.amount).toBe(native!.valueLamports)

    // a query_positions intent answers the same stake position
    const query = await run({ walletId: wallet.id, type: "query_positions", protocol: "system-program", intent: {} })
    expect(query.status).toBe("confirmed")
    expect((query.result?.positions as ReadonlyArray<Position>).filter((p) => p.type === "stake")).toEqual([position])
    expect((query.result?.positions as ReadonlyArray<Position>).find((p) => p.type === "native")?.amount).toEqual(expect.any(Number))

    const half = lst / 2n
    expect((await run({ walletId: wallet.id, type: "unstake", protocol: "liquid-staking", intent: { amount: half.toString() } })).status).toBe("confirmed")
    const [afterHalf] = await stakePositionsOf(wallet.id)
    expect(afterHalf?.amount).toBe((lst - half).toString())

    expect((await run({ walletId: wallet.id, type: "unstake", protocol: "liquid-staking", intent: { amount: (lst - half).toString() } })).status).toBe("confirmed")
    expect(await stakePositionsOf(wallet.id)).toEqual([])
  })

  it("lists a token position valued at the oracle and the lamports an open escrow of the wallet locks", async () => {
    const [wallet, counterparty, arbiter] = await Promise.all([
      createWallet(env.service.baseUrl, 3_000_000_000), createWallet(env.service.baseUrl, 100_000_000), createWallet(env.service.baseUrl, 100_000_000)
    ])
    const usdc = mintBySymbol("USDC").address.toBase58()
    const swapped = await run({ walletId: wallet.id, type: "swap", protocol: "amm-one", intent: { inputMint: NATIVE_MINT.toBase58(), outputMint: usdc, amount: "100000000", slippageBps: 100 } })
    expect(swapped.status).toBe("confirmed")
    const escrowed = await run({
      walletId: wallet.id, type: "create_escrow", protocol: "escrow",
      intent: {
        escrowNumericId: `${Date.now()}`, creator: wallet.publicKey, counterparty: counterparty.publicKey, arbiter: arbiter.publicKey,
        feeRecipient: arbiter.publicKey, amount: "200000000", deadlineUnixSec: Math.floor(Date.now() / 1000) + 3600
      }
    })
    expect(escrowed.status).toBe("confirmed")

    const positions = (await api<{ readonly positions: ReadonlyArray<Position> }>(env.service.baseUrl, "GET", `/api/v1/wallets/${wallet.id}/positions`)).body.data.positions
    const token = positions.find((p) => p.type === "token" && p.token === usdc)!
    // USDC at the seeded 1.00 USD: the value is the amount in whole USDC
    const amount = BigInt(token.amount)
    expect(amount).toBeGreaterThan(0n)
    expect(token).toMatchObject({ protocol: "spl-token", value: `${amount / 1_000_000n}.${(amount % 1_000_000n).toString().padStart(6, "0")}` })
    const escrow = positions.find((p) => p.type === "escrow")
    expect(escrow).toMatchObject({ protocol: "escrow", amount: 200_000_000, token: "SOL", valueLamports: 200_000_000, value: usdOf(200_000_000n) })
    // the counterparty has no escrow position: it locked nothing
    const theirs = (await api<{ readonly positions: ReadonlyArray<Position> }>(env.service.baseUrl, "GET", `/api/v1/wallets/${counterparty.id}/positions`)).body.data.positions
    expect(theirs.filter((p) => p.type === "escrow")).toEqual([])
  })

  it("answers 404 for a wallet the tenant does not hold, and 400 for a malformed id", async () => {
    expect((await api(env.service.baseUrl, "GET", "/api/v1/wallets/00000000-0000-4000-8000-000000000000/positions")).status).toBe(404)
    const bad = await api(env.service.baseUrl, "GET", "/api/v1/wallets/not-a-uuid/positions")
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("walletId")
  })
})
