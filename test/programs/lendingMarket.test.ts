/**
 * The lending-market program on litesvm directly (transactions that land or fail on chain): supply for shares,
 * a borrow within the collateral factor, a borrow beyond it refused by the health check (7221), interest
 * accrual by the borrow index, a price drop that makes the next borrow unsafe, and flash loans: repaid with
 * the fee in the same transaction, refused without a later repayment (7223) or with too small a one.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import {
  createAssociatedTokenAccountIdempotentInstruction, createInitializeMint2Instruction, createMintToInstruction, createTransferInstruction,
  getAssociatedTokenAddressSync, MINT_SIZE, TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { writePriceUpdate } from "../../src/ledger/oracleMethods.js"
import { borrowInstruction, flashBorrowInstruction, flashRepayInstruction, initReserveInstruction, supplyInstruction } from "../../src/protocols/lending/instructions.js"
import {
  currentIndex, decodeObligation, decodeReserve, flashFee, healthOf, INDEX_ONE, obligationAddress, reserveAddress, slotAmounts, usdValue
} from "../../src/protocols/lending/layout.js"
import { describeLendingFailure } from "../../src/protocols/lending/errors.js"
import { feedBySymbol } from "../../src/protocols/oracle/feeds.js"
import { feedAccountAddress } from "../../src/protocols/oracle/priceUpdate.js"
import { TestLedger } from "./ledger.js"

const SO = fileURLToPath(new URL("../../programs/dist/lending-market.so", import.meta.url))
const PROGRAM_ID = new PublicKey("LendMkt111111111111111111111111111111111111")
const SOL_FEED = feedBySymbol("SOL")!
const USDC_FEED = feedBySymbol("USDC")!
const USDC = 1_000_000n
const COIN = 1_000_000_000n

const setup = () => {
  const ledger = new TestLedger()
  ledger.addProgram(PROGRAM_ID, readFileSync(SO))
  const authority = ledger.payer
  // "coin": 9 decimals at $150 (the SOL feed); "usd": 6 decimals at $1 (the USDC feed)
  writePriceUpdate(ledger.svm, SOL_FEED.feedId, 15_000_000_000n, -8, 0n)
  writePriceUpdate(ledger.svm, USDC_FEED.feedId, 100_000_000n, -8, 0n)
  const makeMint = (decimals: number) => {
    const mint = Keypair.generate()
    expect(ledger.send([
      SystemProgram.createAccount({ fromPubkey: authority.publicKey, newAccountPubkey: mint.publicKey, lamports: Number(ledger.rentExempt(MINT_SIZE)), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
      createInitializeMint2Instruction(mint.publicKey, decimals, authority.publicKey, null)
    ], [mint]).ok).toBe(true)
    return mint.publicKey
  }
  const coin = makeMint(9)
  const usd = makeMint(6)
  const vaultOf = (mint: PublicKey) => getAssociatedTokenAddressSync(mint, reserveAddress(PROGRAM_ID, mint), true)
  const oracleOf = (mint: PublicKey) => feedAccountAddress(mint.equals(coin) ? SOL_FEED.feedId : USDC_FEED.feedId)
  const initReserve = (mint: PublicKey, collateralFactorBps: number) =>
    ledger.send([
      createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, vaultOf(mint), reserveAddress(PROGRAM_ID, mint), mint),
      initReserveInstruction(PROGRAM_ID, authority.publicKey, mint, vaultOf(mint), oracleOf(mint), { collateralFactorBps, borrowRateBps: 800, flashFeeBps: 9 })
    ])
  const balanceOf = (account: PublicKey) => Buffer.from(ledger.data(account)!).readBigUInt64LE(64)
  const user = (holdings: ReadonlyArray<[PublicKey, bigint]>) => {
    const keypair = ledger.newFundedKeypair(5n * COIN)
    const accounts = new Map<string, PublicKey>()
    for (const mint of [coin, usd]) {
      const account = getAssociatedTokenAddressSync(mint, keypair.publicKey)
      accounts.set(mint.toBase58(), account)
      const amount = holdings.find(([m]) => m.equals(mint))?.[1] ?? 0n
      expect(ledger.send([
        createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, account, keypair.publicKey, mint),
        ...(amount > 0n ? [createMintToInstruction(mint, account, authority.publicKey, amount)] : [])
      ]).ok).toBe(true)
    }
    const keys = (mint: PublicKey) => ({ programId: PROGRAM_ID, owner: keypair.publicKey, mint, vault: vaultOf(mint), userToken: accounts.get(mint.toBase58())! })
    const positions = () => decodeObligation(ledger.data(obligationAddress(PROGRAM_ID, keypair.publicKey))!)!.slots.map((slot) => {
      const reserve = decodeReserve(ledger.data(slot.reserve)!)!
      return { reserve: slot.reserve, oracle: reserve.oracle }
    })
    const supply = (mint: PublicKey, amount: bigint) => ledger.send([supplyInstruction(keys(mint), amount)], [keypair], keypair)
    const borrow = (mint: PublicKey, amount: bigint) => {
      const known = ledger.data(obligationAddress(PROGRAM_ID, keypair.publicKey)) === undefined ? [] : positions()
      const reserve = reserveAddress(PROGRAM_ID, mint)
      const withBorrowed = known.some((p) => p.reserve.equals(reserve)) ? known : [...known, { reserve, oracle: oracleOf(mint) }]
      return ledger.send([borrowInstruction(keys(mint), amount, withBorrowed)], [keypair], keypair)
    }
    return { keypair, token: (mint: PublicKey) => balanceOf(accounts.get(mint.toBase58())!), supply, borrow, keys }
  }
  const reserve = (mint: PublicKey) => decodeReserve(ledger.data(reserveAddress(PROGRAM_ID, mint))!)!
  return { ledger, authority, coin, usd, vaultOf, initReserve, user, reserve, balanceOf }
}

describe("lending-market program", () => {
  it("supplies, lends within the collateral factor, and refuses the borrow that would make the account unsafe", () => {
    const { coin, usd, initReserve, user, reserve, balanceOf, vaultOf } = setup()
    expect(initReserve(coin, 7_500).ok).toBe(true)
    expect(initReserve(usd, 8_000).ok).toBe(true)
    expect(reserve(coin)).toMatchObject({ collateralFactorBps: 7_500, decimals: 9, borrowIndex: INDEX_ONE, supplyShares: 0n })

    const lender = user([[usd, 10_000n * USDC]])
    expect(lender.supply(usd, 10_000n * USDC).ok).toBe(true)
    expect(reserve(usd)).toMatchObject({ supplyShares: 10_000n * USDC, available: 10_000n * USDC })
    expect(balanceOf(vaultOf(usd))).toBe(10_000n * USDC)

    // 10 coins at $150 x 75% = $1,125 of borrowing power
    const borrower = user([[coin, 10n * COIN]])
    expect(borrower.supply(coin, 10n * COIN).ok).toBe(true)
    expect(borrower.borrow(usd, 1_000n * USDC).ok).toBe(true)
    expect(borrower.token(usd)).toBe(1_000n * USDC)
    // 1,000 + 126 = $1,126 > $1,125: refused on chain, nothing moves
    const refused = borrower.borrow(usd, 126n * USDC)
    expect(refused.ok).toBe(false)
    expect(refused.customError).toBe(7221)
    expect(describeLendingFailure(refused.logs, PROGRAM_ID.toBase58())).toMatch(/7221 unhealthy/)
    expect(borrower.token(usd)).toBe(1_000n * USDC)
    expect(borrower.borrow(usd, 124n * USDC).ok).toBe(true)

    // the TS mirror of the health check agrees with the program: $1,124 debt against $1,125
    const usdReserve = reserve(usd)
    const coinReserve = reserve(coin)
    const supplied = slotAmounts(coinReserve, { supplyShares: 10n * COIN, borrowedScaled: 0n }, coinReserve.lastAccrualTs).supplied
    const health = healthOf([
      { suppliedValue: usdValue(supplied, 9, 15_000_000_000n, -8)!, borrowedValue: 0n, collateralFactorBps: 7_500 },
      { suppliedValue: 0n, borrowedValue: usdValue(usdReserve.borrowedScaled, 6, 100_000_000n, -8)!, collateralFactorBps: 8_000 }
    ])
    expect(health).toEqual({ collateralValue: 1_125_000_000n, debtValue: 1_124_000_000n })
  })

  it("accrues interest on the borrow index, and a price drop makes the next borrow unsafe", () => {
    const { ledger, coin, usd, initReserve, user, reserve } = setup()
    expect(initReserve(coin, 7_500).ok).toBe(true)
    expect(initReserve(usd, 8_000).ok).toBe(true)
    expect(user([[usd, 10_000n * USDC]]).supply(usd, 10_000n * USDC).ok).toBe(true)
    const borrower = user([[coin, 10n * COIN]])
    expect(borrower.supply(coin, 10n * COIN).ok).toBe(true)
    expect(borrower.borrow(usd, 500n * USDC).ok).toBe(true)
    const before = reserve(usd)

    // half a year at 8%: the index grows by 4%
    const later = before.lastAccrualTs + 31_536_000n / 2n
    ledger.setUnixTimestamp(later)
    expect(currentIndex(before, later)).toBe(INDEX_ONE + INDEX_ONE / 25n)
    expect(borrower.borrow(usd, 1n * USDC).ok).toBe(true)
    const after = reserve(usd)
    expect(after.borrowIndex).toBe(INDEX_ONE + INDEX_ONE / 25n)
    // 500 x 1.04 + 1; the new borrow's scaled debt rounds up, so it owes one base unit more
    expect(slotAmounts(after, { supplyShares: 0n, borrowedScaled: after.borrowedScaled }, later).borrowed).toBe(521n * USDC + 1n)
    // the lender's shares are worth cash + borrows with interest
    expect(slotAmounts(after, { supplyShares: 10_000n * USDC, borrowedScaled: 0n }, later).supplied).toBe(10_020n * USDC)

    // coin falls to $70: 10 x 70 x 75% = $525 < $521 + $5
    writePriceUpdate(ledger.svm, SOL_FEED.feedId, 7_000_000_000n, -8, 1n)
    expect(borrower.borrow(usd, 5n * USDC).customError).toBe(7221)
    expect(borrower.borrow(usd, 3n * USDC).ok).toBe(true)
  })

  it("lends for one transaction when a later flash_repay of the same reserve pays the loan plus its fee", () => {
    const { ledger, authority, usd, coin, initReserve, user, reserve, balanceOf, vaultOf } = setup()
    expect(initReserve(usd, 8_000).ok).toBe(true)
    expect(initReserve(coin, 7_500).ok).toBe(true)
    expect(user([[usd, 10_000n * USDC]]).supply(usd, 10_000n * USDC).ok).toBe(true)
    const trader = user([[usd, 10n * USDC]])
    const account = trader.keys(usd).userToken
    const amount = 5_000n * USDC
    const fee = flashFee(amount, 9)
    expect(fee).toBe(4_500_000n)
    const loan = flashBorrowInstruction(PROGRAM_ID, usd, vaultOf(usd), account, amount)
    const repay = (paid: bigint) => flashRepayInstruction(PROGRAM_ID, trader.keypair.publicKey, usd, vaultOf(usd), account, paid)
    // the caller's own step in between: here a transfer to itself of what it borrowed
    const use = createTransferInstruction(account, account, trader.keypair.publicKey, amount)

    const repaid = ledger.send([loan, use, repay(amount + fee)], [trader.keypair], trader.keypair)
    expect(repaid.ok).toBe(true)
    expect(trader.token(usd)).toBe(10n * USDC - fee)
    expect(balanceOf(vaultOf(usd))).toBe(10_000n * USDC + fee)
    expect(reserve(usd)).toMatchObject({ flashOutstanding: 0n, available: 10_000n * USDC + fee })

    // no repayment later in the transaction: refused by introspection
    const unpaid = ledger.send([loan, use], [trader.keypair], trader.keypair)
    expect(unpaid.customError).toBe(7223)
    expect(describeLendingFailure(unpaid.logs, PROGRAM_ID.toBase58())).toMatch(/7223 flash loan not repaid/)
    // a repayment before the loan does not count, nor one without the fee, nor one of another reserve
    expect(ledger.send([repay(amount + fee), loan], [trader.keypair], trader.keypair).ok).toBe(false)
    expect(ledger.send([loan, repay(amount)], [trader.keypair], trader.keypair).customError).toBe(7223)
    const otherReserve = flashRepayInstruction(PROGRAM_ID, trader.keypair.publicKey, coin, vaultOf(coin), trader.keys(coin).userToken, amount + fee)
    expect(ledger.send([loan, otherReserve], [trader.keypair], trader.keypair).customError).toBe(7223)
    // two loans against one repayment: the second is refused while the first is in flight
    expect(ledger.send([loan, loan, repay(amount + fee)], [trader.keypair], trader.keypair).customError).toBe(7224)
    // a repayment with no loan
    expect(ledger.send([repay(amount + fee)], [trader.keypair], trader.keypair).customError).toBe(7225)
    expect(balanceOf(vaultOf(usd))).toBe(10_000n * USDC + fee)
    expect(authority).toBeDefined()
  })
})
