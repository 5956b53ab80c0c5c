/**
 * lend_supply and lend_borrow through the pipeline on the local ledger's seeded market (SOL at $150 with a 75%
 * collateral factor, USDC at $1): a supply then a borrow within the collateral factor confirm, and positions show
 * both with the account's health factor; a borrow beyond it is refused by the program's health check (7221):
 * by the simulation the pipeline runs before signing (the program executing on the ledger), and, when the price
 * drops while the borrow waits at the approval gate, by the program on chain once the signed transaction lands.
 * And the way out: lend_withdraw returns supplied tokens (refused by the program, 7228, when the remaining
 * collateral would not cover the borrows) and lend_repay pays a borrow down (capped at the debt with interest);
 * a full withdraw or repay removes the position.
 */
import { getAssociatedTokenAddressSync, NATIVE_MINT } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../../src/protocols/lending/lendingIds.js"
import { decodeObligation, obligationAddress, reserveAddress } from "../../src/protocols/lending/layout.js"
import { useServiceWithLedger } from "../support/harness.js"
import { type WireDataOf, dataOf, makeClient } from "../support/client.js"
import { defined } from "../support/defined.js"
import { api } from "../support/service.js"
import type { LendingApi } from "../../schemas/api/lending.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger({ ledger: { lending: true }, env: { LENDING_MARKET_PROGRAM_ID: LOCAL_LENDING_MARKET_PROGRAM_ID } })
const PROGRAM_ID = new PublicKey(LOCAL_LENDING_MARKET_PROGRAM_ID)
const USDC = mintBySymbol("USDC").address
const SOL = 1_000_000_000n

const run = async (body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body
}
const supply = (walletId: string, mint: PublicKey, amount: bigint) =>
  run({ walletId, type: "lend_supply", protocol: "lending-market", intent: { mint: mint.toBase58(), amount: amount.toString() } })
const borrow = (walletId: string, mint: PublicKey, amount: bigint) =>
  run({ walletId, type: "lend_borrow", protocol: "lending-market", intent: { mint: mint.toBase58(), amount: amount.toString() } })

const withdraw = (walletId: string, mint: PublicKey, amount: bigint) =>
  run({ walletId, type: "lend_withdraw", protocol: "lending-market", intent: { mint: mint.toBase58(), amount: amount.toString() } })
const repay = (walletId: string, mint: PublicKey, amount: bigint) =>
  run({ walletId, type: "lend_repay", protocol: "lending-market", intent: { mint: mint.toBase58(), amount: amount.toString() } })
const lamports = (owner: string) => new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(owner)).then(BigInt)
/** The health factor as a number of ten-thousandths ("1.8750" -> 18750n). */
const healthOf = async (walletId: string) => BigInt(defined((await lendingPositions(walletId))[0]?.healthFactor, "a health factor").replace(".", ""))

const tokenBalance = async (owner: string, mint: PublicKey) => {
  const info = await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(getAssociatedTokenAddressSync(mint, new PublicKey(owner)))
  return info === null ? 0n : info.data.readBigUInt64LE(64)
}
const lendingPositions = async (walletId: string) => {
  const response = await makeClient(env.service.baseUrl).positions.list({ params: { walletId } })
  expect(response.status).toBe(200)
  return dataOf(response).positions.filter((p) => p.protocol === "lending-market")
}
/** The wallet's indexed lending rows (migration 0014), as portfolio risk reads them. */
const indexedRows = async (walletId: string) => {
  const client = new pg.Client({ connectionString: env.service.database.url })
  await client.connect()
  try {
    const { rows } = await client.query(
      "SELECT position_type, token, amount::text AS amount, value_lamports::text AS value_lamports FROM positions WHERE wallet_id = $1 AND protocol = 'lending-market' ORDER BY position_type",
      [walletId]
    )
    return rows as Array<{ position_type: string; token: string; amount: string; value_lamports: string }>
  } finally {
    await client.end()
  }
}
const setSolPrice = (price: string) => api(env.service.baseUrl, "PUT", "/api/v1/defi/oracle/prices/SOL", { price, exponent: -8 })

describe("lending through the pipeline", () => {
  it("confirms a supply and a borrow within the collateral factor, shows both positions with health, and the simulation refuses one beyond it", async () => {
    const wallet = await createWallet(env.service.baseUrl, 8_000_000_000)
    const supplied = await supply(wallet.id, NATIVE_MINT, 5n * SOL)
    expect(supplied.data.status).toBe("confirmed")
    // the wrapped-SOL account the builder opened was closed again: the wallet holds lamports only
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(getAssociatedTokenAddressSync(NATIVE_MINT, new PublicKey(wallet.publicKey)))).toBeNull()

    // 5 SOL x $150 x 75% = $562.50 of borrowing power
    const borrowed = await borrow(wallet.id, USDC, 500_000_000n)
    expect(borrowed.data.status).toBe("confirmed")
    expect(await tokenBalance(wallet.publicKey, USDC)).toBe(500_000_000n)

    const positions = await lendingPositions(wallet.id)
    const supplyPosition = positions.find((p) => p.type === "supply")
    const borrowPosition = positions.find((p) => p.type === "borrow")
    expect(supplyPosition).toMatchObject({ token: NATIVE_MINT.toBase58(), address: reserveAddress(PROGRAM_ID, NATIVE_MINT).toBase58(), value: "750.000000" })
    // the seeded SOL reserve has no borrower yet, so the shares are worth exactly what was supplied
    expect(supplyPosition?.amount).toBe((5n * SOL).toString())
    expect(BigInt(defined(supplyPosition?.valueLamports, "the supply's valueLamports"))).toBe(5n * SOL)
    // interest accrues by the second: the debt is the 500 USDC plus at most a few base units
    expect(borrowPosition).toMatchObject({ token: USDC.toBase58(), address: reserveAddress(PROGRAM_ID, USDC).toBase58() })
    const debt = BigInt(defined(borrowPosition?.amount, "the borrow's amount"))
    expect(debt).toBeGreaterThanOrEqual(500_000_000n)
    expect(debt).toBeLessThan(500_001_000n)
    // $500 at $150 per SOL
    expect(Number(borrowPosition?.valueLamports)).toBeCloseTo(3_333_333_333, -4)
    // collateral $750 x 75% over the debt's value (500 USDC and its interest so far), floored to 4 places
    const debtMicroUsd = BigInt(String(borrowPosition?.value).replace(".", ""))
    const health = (562_500_000n * 10_000n) / debtMicroUsd
    expect(health).toBeGreaterThanOrEqual(11_249n)
    expect(supplyPosition?.healthFactor).toBe(`${health / 10_000n}.${(health % 10_000n).toString().padStart(4, "0")}`)
    expect(borrowPosition?.healthFactor).toBe(supplyPosition?.healthFactor)

    // the indexed rows follow the convention portfolio risk reads: the mint, base units, lamports (a borrow's positive too)
    const rows = await indexedRows(wallet.id)
    expect(rows.map((r) => [r.position_type, r.token])).toEqual([["borrow", USDC.toBase58()], ["supply", NATIVE_MINT.toBase58()]])
    expect(rows[1]).toMatchObject({ amount: (5n * SOL).toString(), value_lamports: (5n * SOL).toString() })
    expect(BigInt(rows[0]!.amount)).toBeGreaterThanOrEqual(500_000_000n)
    expect(Number(rows[0]!.value_lamports)).toBeCloseTo(3_333_333_333, -4)
    const query = await run({ walletId: wallet.id, type: "query_positions", protocol: "system-program", intent: {} })
    const queried = defined(query.data.result, "query_positions' result").positions as ReadonlyArray<{ readonly protocol: string; readonly type: string }>
    expect(queried.filter((p) => p.protocol === "lending-market").map((p) => p.type).sort()).toEqual(["borrow", "supply"])

    // $500 + $70 > $562.50: the program's health check refuses it; nothing is signed
    const refused = await borrow(wallet.id, USDC, 70_000_000n)
    expect(refused).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.error).toContain(`lending-market program ${LOCAL_LENDING_MARKET_PROGRAM_ID} refused: error 7221 unhealthy`)
    expect(refused.data.signature).toBeUndefined()
    // the replay keeps the simulation: the program ran on the ledger and logged its refusal
    const replay = dataOf(await makeClient(env.service.baseUrl).transactions.replay({ params: { txId: refused.data.id } }))
    expect(replay.simulation).toMatchObject({ ok: false })
    expect((replay.simulation?.logs ?? []).join("\n")).toContain("borrow refused, borrowed value would exceed collateral value x factor")
    expect(await tokenBalance(wallet.publicKey, USDC)).toBe(500_000_000n)
  })

  it("is not signed when the price falls while the borrow waits for approval: its rebuilt simulation shows the program's refusal", async () => {
    const wallet = await createWallet(env.service.baseUrl, 8_000_000_000)
    expect((await supply(wallet.id, NATIVE_MINT, 5n * SOL)).data.status).toBe("confirmed")
    // the borrow opens the wallet's USDC account (its rent leaves the wallet): above 1,000,000 lamports asks for approval
    const policy = await api(env.service.baseUrl, "POST", "/api/v1/policies", {
      walletId: wallet.id, name: "approve lending", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 1_000_000 }]
    })
    expect(policy.status).toBe(201)
    const gated = await borrow(wallet.id, USDC, 500_000_000n)
    expect(gated.data.status).toBe("approval_gate")
    try {
      // SOL falls to $100: 5 x $100 x 75% = $375 < $500
      expect((await setSolPrice("10000000000")).status).toBe(200)
      expect((await api(env.service.baseUrl, "POST", `/api/v1/transactions/${gated.data.id}/approve`)).status).toBe(200)
      const settled = (await waitSettled(env.service.baseUrl, gated.data.id, 60_000)).body
      // approvals outlive blockhashes (issue 31): built again after approval and simulated before signing, the
      // program's refusal shows there and nothing is signed (its on-chain check: test/programs/lendingMarket.test.ts)
      expect(settled).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
      expect(settled.error).toContain("simulation failed after approval")
      expect(settled.error).toContain(`lending-market program ${LOCAL_LENDING_MARKET_PROGRAM_ID} refused: error 7221 unhealthy`)
      expect(settled.data.signature).toBeUndefined()
      expect(await tokenBalance(wallet.publicKey, USDC)).toBe(0n)
      expect((await lendingPositions(wallet.id)).map((p) => p.type)).toEqual(["supply"])
    } finally {
      await setSolPrice("15000000000")
    }
    expect(obligationAddress(PROGRAM_ID, new PublicKey(wallet.publicKey))).toBeDefined()
  })

  it("reports lending-market healthy where its program is configured and deployed", async () => {
    const health = await makeClient(env.service.baseUrl).protocols.protocolHealth({ params: { protocol: "lending-market" } })
    expect(health.body.data).toEqual({ protocol: "lending-market", ok: true, configured: true, deployed: true, programId: LOCAL_LENDING_MARKET_PROGRAM_ID })
  })

  it("previews a supply and a borrow at /defi/lend/*, and the execute request it answers runs through the pipeline", async () => {
    const wallet = await createWallet(env.service.baseUrl, 4_000_000_000)
    const supplyBody = { protocol: "lending-market", wallet: wallet.publicKey, mint: NATIVE_MINT.toBase58(), amount: "2000000000" }
    const preview = await api<WireDataOf<typeof LendingApi.supply>>(env.service.baseUrl, "POST", "/api/v1/defi/lend/supply", supplyBody)
    expect(preview.status).toBe(200)
    expect(preview.body.data.quote).toMatchObject({
      operation: "lend_supply", amount: "2000000000", account: { positions: [], healthFactor: null },
      reserve: { address: reserveAddress(PROGRAM_ID, NATIVE_MINT).toBase58(), collateralFactorBps: 7_500, programId: LOCAL_LENDING_MARKET_PROGRAM_ID }
    })
    expect(preview.body.data.transaction.programIds).toContain(LOCAL_LENDING_MARKET_PROGRAM_ID)
    expect(preview.body.data.execute.body).toEqual({ walletId: wallet.id, type: "lend_supply", protocol: "lending-market", intent: { mint: NATIVE_MINT.toBase58(), amount: "2000000000" } })
    expect((await run(preview.body.data.execute.body)).data.status).toBe("confirmed")

    // a borrow preview shows the account as it stands; it does not judge the borrow (the chain does)
    const borrowPreview = await api<WireDataOf<typeof LendingApi.borrow>>(env.service.baseUrl, "POST", "/api/v1/defi/lend/borrow", { ...supplyBody, mint: USDC.toBase58(), amount: "900000000" })
    expect(borrowPreview.status).toBe(200)
    expect(borrowPreview.body.data.quote.account).toEqual({ positions: [{ type: "supply", mint: NATIVE_MINT.toBase58(), amount: "2000000000", valueLamports: 2_000_000_000 }], healthFactor: null })
    expect(borrowPreview.body.data.quote.note).toContain("7221")

    // a mint without a reserve fails closed at build, naming it
    const unknown = await api(env.service.baseUrl, "POST", "/api/v1/defi/lend/supply", { ...supplyBody, mint: mintBySymbol("BONK").address.toBase58() })
    expect(unknown).toMatchObject({ status: 500, body: { errorCode: "PIPELINE_ERROR", failedAt: "build" } })
    expect(unknown.body.error).toContain(`no lending-market reserve for mint ${mintBySymbol("BONK").address.toBase58()}`)
  })

  it("repays part of a borrow (health rises), withdraws supply back to the wallet, and the simulation refuses a withdrawal beyond the collateral factor (7228)", async () => {
    const wallet = await createWallet(env.service.baseUrl, 8_000_000_000)
    expect((await supply(wallet.id, NATIVE_MINT, 5n * SOL)).data.status).toBe("confirmed")
    expect((await borrow(wallet.id, USDC, 300_000_000n)).data.status).toBe("confirmed")
    // $562.50 of collateral over $300 of debt (and its interest so far)
    const before = await healthOf(wallet.id)
    expect(before).toBeLessThanOrEqual(18_750n)
    expect(before).toBeGreaterThanOrEqual(18_740n)

    const repaid = await repay(wallet.id, USDC, 100_000_000n)
    expect(repaid.data.status).toBe("confirmed")
    expect(await tokenBalance(wallet.publicKey, USDC)).toBe(200_000_000n)
    const debt = BigInt(defined((await lendingPositions(wallet.id)).find((p) => p.type === "borrow")?.amount, "the borrow's amount"))
    expect(debt).toBeGreaterThanOrEqual(200_000_000n)
    expect(debt).toBeLessThan(200_001_000n)
    // $562.50 / $200: the health factor rose from about 1.875 to about 2.8125
    const after = await healthOf(wallet.id)
    expect(after).toBeGreaterThan(before)
    expect(after).toBeGreaterThanOrEqual(28_100n)
    expect(after).toBeLessThanOrEqual(28_125n)

    // 1 SOL left would be $112.50 < $200 borrowed: the program's health check refuses it in simulation, nothing is signed
    const lamportsBefore = await lamports(wallet.publicKey)
    const refused = await withdraw(wallet.id, NATIVE_MINT, 4n * SOL)
    expect(refused).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.error).toContain(`lending-market program ${LOCAL_LENDING_MARKET_PROGRAM_ID} refused: error 7228 withdrawal refused`)
    expect(refused.data.signature).toBeUndefined()
    const replay = dataOf(await makeClient(env.service.baseUrl).transactions.replay({ params: { txId: refused.data.id } }))
    expect((replay.simulation?.logs ?? []).join("\n")).toContain("withdrawal refused, borrowed value would exceed the remaining collateral value x factor")
    expect(await lamports(wallet.publicKey)).toBe(lamportsBefore)

    // 4 SOL left ($450 x 75%... $337.50 > $200): the SOL comes back to the wallet, less the network fee
    const withdrawn = await withdraw(wallet.id, NATIVE_MINT, 1n * SOL)
    expect(withdrawn.data.status).toBe("confirmed")
    const delta = (await lamports(wallet.publicKey)) - lamportsBefore
    expect(delta).toBeLessThanOrEqual(1n * SOL)
    expect(delta).toBeGreaterThan(1n * SOL - 100_000n)
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(getAssociatedTokenAddressSync(NATIVE_MINT, new PublicKey(wallet.publicKey)))).toBeNull()
    const supplied = BigInt(defined((await lendingPositions(wallet.id)).find((p) => p.type === "supply")?.amount, "the supply's amount"))
    expect(supplied).toBeGreaterThanOrEqual(4n * SOL - 1n)
    expect(supplied).toBeLessThanOrEqual(4n * SOL + 1_000n)
    expect((await indexedRows(wallet.id)).find((r) => r.position_type === "supply")?.amount).toBe(supplied.toString())
  })

  it("a repay above the debt pays exactly the debt, a withdraw above the supply takes it all, and both positions are gone", async () => {
    const wallet = await createWallet(env.service.baseUrl, 8_000_000_000)
    expect((await supply(wallet.id, NATIVE_MINT, 3n * SOL)).data.status).toBe("confirmed")
    expect((await borrow(wallet.id, NATIVE_MINT, 1n * SOL)).data.status).toBe("confirmed")
    expect((await lendingPositions(wallet.id)).map((p) => p.type).sort()).toEqual(["borrow", "supply"])

    // 2 SOL offered, the debt (1 SOL and a few lamports of interest) taken: the rest stays in the wallet
    const beforeRepay = await lamports(wallet.publicKey)
    expect((await repay(wallet.id, NATIVE_MINT, 2n * SOL)).data.status).toBe("confirmed")
    const paid = beforeRepay - (await lamports(wallet.publicKey))
    expect(paid).toBeGreaterThanOrEqual(1n * SOL)
    expect(paid).toBeLessThan(1n * SOL + 100_000n)
    const left = await lendingPositions(wallet.id)
    expect(left.map((p) => p.type)).toEqual(["supply"])
    expect(left[0]?.healthFactor).toBeUndefined()
    expect((await indexedRows(wallet.id)).map((r) => r.position_type)).toEqual(["supply"])

    // far more than supplied: every share is burnt and their whole worth (3 SOL and its share of interest) comes back
    const beforeWithdraw = await lamports(wallet.publicKey)
    expect((await withdraw(wallet.id, NATIVE_MINT, 1_000n * SOL)).data.status).toBe("confirmed")
    const received = (await lamports(wallet.publicKey)) - beforeWithdraw
    expect(received).toBeGreaterThan(3n * SOL - 100_000n)
    expect(received).toBeLessThanOrEqual(3n * SOL + 1_000n)
    expect(await lendingPositions(wallet.id)).toEqual([])
    expect(await indexedRows(wallet.id)).toEqual([])
    const obligation = await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(obligationAddress(PROGRAM_ID, new PublicKey(wallet.publicKey)))
    expect(decodeObligation(defined(obligation, "the obligation").data)?.slots).toEqual([])

    // nothing left to withdraw or repay: refused at build, naming the mint
    const nothing = await withdraw(wallet.id, NATIVE_MINT, 1n)
    expect(nothing).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(nothing.error).toContain("has nothing supplied to the lending-market reserve")
    expect((await repay(wallet.id, USDC, 1n)).error).toContain("has nothing borrowed from the lending-market reserve")
  })

  it("previews a withdrawal and a repayment at /defi/lend/*, and refuses bad input with a 400 naming the field", async () => {
    const wallet = await createWallet(env.service.baseUrl, 4_000_000_000)
    expect((await supply(wallet.id, NATIVE_MINT, 2n * SOL)).data.status).toBe("confirmed")
    expect((await borrow(wallet.id, USDC, 50_000_000n)).data.status).toBe("confirmed")
    const client = makeClient(env.service.baseUrl)
    const body = { protocol: "lending-market" as const, wallet: wallet.publicKey, mint: USDC.toBase58(), amount: "20000000" }
    const repayPreview = dataOf(await client.lending.repay({ body }))
    expect(repayPreview.quote).toMatchObject({ operation: "lend_repay", amount: "20000000" })
    expect(repayPreview.quote.note).toContain("debt")
    expect(repayPreview.execute.body).toEqual({ walletId: wallet.id, type: "lend_repay", protocol: "lending-market", intent: { mint: USDC.toBase58(), amount: "20000000" } })
    expect((await run(repayPreview.execute.body)).data.status).toBe("confirmed")
    expect(await tokenBalance(wallet.publicKey, USDC)).toBe(30_000_000n)

    const withdrawPreview = dataOf(await client.lending.withdraw({ body: { ...body, mint: NATIVE_MINT.toBase58(), amount: "500000000" } }))
    expect(withdrawPreview.quote).toMatchObject({ operation: "lend_withdraw", reserve: { address: reserveAddress(PROGRAM_ID, NATIVE_MINT).toBase58() } })
    expect(withdrawPreview.quote.note).toContain("7228")
    expect(withdrawPreview.transaction.programIds).toContain(LOCAL_LENDING_MARKET_PROGRAM_ID)
    const lamportsBefore = await lamports(wallet.publicKey)
    expect((await run(withdrawPreview.execute.body)).data.status).toBe("confirmed")
    expect((await lamports(wallet.publicKey)) - lamportsBefore).toBeGreaterThan(500_000_000n - 100_000n)

    // bad input: 400, naming the field, and nothing created
    for (const [path, bad, field] of [
      ["withdraw", { ...body, amount: "0" }, "amount"],
      ["repay", { ...body, amount: "12.5" }, "amount"],
      ["withdraw", { ...body, mint: "not-a-key" }, "mint"],
      ["repay", { ...body, wallet: undefined }, "wallet"]
    ] as const) {
      const refused = await api(env.service.baseUrl, "POST", `/api/v1/defi/lend/${path}`, bad)
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
      expect(refused.body.error).toContain(field)
    }
    for (const [intent, field] of [
      [{ mint: USDC.toBase58(), amount: "-5" }, "intent.amount"],
      [{ amount: "5" }, "intent.mint"]
    ] as const) {
      for (const type of ["lend_withdraw", "lend_repay"]) {
        const refused = await submit(env.service.baseUrl, { walletId: wallet.id, type, protocol: "lending-market", intent })
        expect(refused.status).toBe(400)
        expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
        expect(JSON.stringify(refused.body)).toContain(field)
      }
    }
  })
})
