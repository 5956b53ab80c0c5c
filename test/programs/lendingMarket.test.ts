/**
 * The lending-market program on litesvm directly (transactions that land or fail on chain): supply for shares,
 * a borrow within the collateral factor, a borrow beyond it refused by the health check (7221), interest
 * accrual by the borrow index, a price drop that makes the next borrow unsafe, and flash loans: repaid with
 * the fee in the same transaction, refused without a later repayment (7223) or with too small a one; withdraw
 * (refused with 7228 when it would leave the borrows uncovered) and repay (capped at the debt with interest).
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
import {
  borrowInstruction, flashBorrowInstruction, flashRepayInstruction, initReserveInstruction, repayInstruction, supplyInstruction, withdrawInstruction
} from "../../src/protocols/lending/instructions.js"
import {
  currentIndex, decodeObligation, decodeReserve, flashFee, healthOf, INDEX_ONE, obligationAddress, repaymentFor, reserveAddress, slotAmounts, usdValue,
  withdrawalFor
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
    const withdraw = (mint: PublicKey, amount: bigint) => ledger.send([withdrawInstruction(keys(mint), amount, positions())], [keypair], keypair)
    const repay = (mint: PublicKey, amount: bigint) => ledger.send([repayInstruction(keys(mint), amount)], [keypair], keypair)
    const slots = () => decodeObligation(ledger.data(obligationAddress(PROGRAM_ID, keypair.publicKey))!)!.slots
    return { keypair, token: (mint: PublicKey) => balanceOf(accounts.get(mint.toBase58())!), supply, borrow, withdraw, repay, slots, keys }
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
    // the feeds publish at the new time too (a half-year-old price is refused: 7231)
    writePriceUpdate(ledger.svm, SOL_FEED.feedId, 15_000_000_000n, -8, 0n)
    writePriceUpdate(ledger.svm, USDC_FEED.feedId, 100_000_000n, -8, 0n)
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

  it("refuses a borrow and a withdrawal valued at a price older than 120 s (7231), and allows them at a fresh one; owing nothing needs no price", () => {
    const { ledger, coin, usd, initReserve, user } = setup()
    expect(initReserve(coin, 7_500).ok).toBe(true)
    expect(initReserve(usd, 8_000).ok).toBe(true)
    expect(user([[usd, 10_000n * USDC]]).supply(usd, 10_000n * USDC).ok).toBe(true)
    const borrower = user([[coin, 10n * COIN]])
    expect(borrower.supply(coin, 10n * COIN).ok).toBe(true)
    expect(borrower.borrow(usd, 100n * USDC).ok).toBe(true)

    const now = ledger.unixTimestamp()
    // the coin's price was published 121 s ago; the usd price is fresh
    writePriceUpdate(ledger.svm, SOL_FEED.feedId, 15_000_000_000n, -8, 1n, now - 121n)
    const borrow = borrower.borrow(usd, 1n * USDC)
    expect(borrow.customError).toBe(7231)
    expect(describeLendingFailure(borrow.logs, PROGRAM_ID.toBase58())).toMatch(/7231 .*older than the lending program accepts/)
    expect(borrower.withdraw(coin, 1n * COIN).customError).toBe(7231)
    expect(borrower.token(usd)).toBe(100n * USDC)
    // one who owes nothing is healthy at any price: the supply comes out unpriced
    const saver = user([[coin, 2n * COIN]])
    expect(saver.supply(coin, 2n * COIN).ok).toBe(true)
    expect(saver.withdraw(coin, 1n * COIN).ok).toBe(true)

    // 120 s is still accepted, and a fresh price lets both through
    writePriceUpdate(ledger.svm, SOL_FEED.feedId, 15_000_000_000n, -8, 2n, now - 120n)
    expect(borrower.borrow(usd, 1n * USDC).ok).toBe(true)
    writePriceUpdate(ledger.svm, SOL_FEED.feedId, 15_000_000_000n, -8, 3n, now)
    expect(borrower.withdraw(coin, 1n * COIN).ok).toBe(true)
    expect(borrower.token(usd)).toBe(101n * USDC)
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

  it("withdraws supply (refused with 7228 when the borrows would be uncovered) and repays borrows with interest, capped at the debt", () => {
    const { ledger, coin, usd, initReserve, user, reserve, balanceOf, vaultOf } = setup()
    expect(initReserve(coin, 7_500).ok).toBe(true)
    expect(initReserve(usd, 8_000).ok).toBe(true)
    const lender = user([[usd, 10_000n * USDC]])
    expect(lender.supply(usd, 10_000n * USDC).ok).toBe(true)
    const borrower = user([[coin, 10n * COIN], [usd, 100n * USDC]])
    expect(borrower.supply(coin, 10n * COIN).ok).toBe(true)
    expect(borrower.borrow(usd, 1_000n * USDC).ok).toBe(true)
    expect(borrower.token(usd)).toBe(1_100n * USDC)
    // nothing borrowed of coin, nothing supplied of usd: each refused with its own code
    expect(borrower.repay(coin, 1n).customError).toBe(7230)
    expect(borrower.withdraw(usd, 1n).customError).toBe(7229)
    expect(borrower.withdraw(coin, 0n).customError).toBe(7211)

    // 8 coins left would be 8 x $150 x 75% = $900 < $1,000 borrowed: refused on chain, nothing moves
    const refused = borrower.withdraw(coin, 2n * COIN)
    expect(refused.customError).toBe(7228)
    expect(describeLendingFailure(refused.logs, PROGRAM_ID.toBase58())).toMatch(/7228 withdrawal refused/)
    expect(borrower.token(coin)).toBe(0n)
    expect(reserve(coin).supplyShares).toBe(10n * COIN)
    // 9 coins left: $1,012.5 covers it
    const coinBefore = reserve(coin)
    expect(withdrawalFor(coinBefore, 10n * COIN, COIN, coinBefore.lastAccrualTs)).toEqual({ shares: COIN, paid: COIN })
    expect(borrower.withdraw(coin, COIN).ok).toBe(true)
    expect(borrower.token(coin)).toBe(COIN)
    expect(balanceOf(vaultOf(coin))).toBe(9n * COIN)
    expect(borrower.slots()[0]).toMatchObject({ supplyShares: 9n * COIN })

    // half a year at 8%: 1,000 owed becomes 1,040; a part repays floor(500 x 10^12 / index) of the scaled debt
    const later = reserve(usd).lastAccrualTs + 31_536_000n / 2n
    ledger.setUnixTimestamp(later)
    const usdBefore = reserve(usd)
    const debtBefore = borrower.slots()[1]!.borrowedScaled
    expect(slotAmounts(usdBefore, { supplyShares: 0n, borrowedScaled: debtBefore }, later).borrowed).toBe(1_040n * USDC)
    const part = repaymentFor(usdBefore, debtBefore, 500n * USDC, later)
    expect(borrower.repay(usd, 500n * USDC).ok).toBe(true)
    expect(borrower.token(usd)).toBe(600n * USDC)
    expect(borrower.slots()[1]!.borrowedScaled).toBe(debtBefore - part.cleared)
    // 540 left, plus the base unit the rounding keeps against the payer
    expect(slotAmounts(reserve(usd), borrower.slots()[1]!, later).borrowed).toBe(540n * USDC + 1n)
    // more than owed pays exactly the debt: 540.000001 leaves, the rest stays, and the position is gone
    expect(borrower.repay(usd, 10_000n * USDC).ok).toBe(true)
    expect(borrower.token(usd)).toBe(60n * USDC - 1n)
    expect(borrower.slots().map((slot) => slot.reserve.toBase58())).toEqual([reserveAddress(PROGRAM_ID, coin).toBase58()])
    expect(reserve(usd)).toMatchObject({ borrowedScaled: 0n, available: 10_040n * USDC + 1n })

    // nothing borrowed now: any amount at or above the supply's worth withdraws it all and frees the slot
    expect(borrower.withdraw(coin, 1_000n * COIN).ok).toBe(true)
    expect(borrower.token(coin)).toBe(10n * COIN)
    expect(borrower.slots()).toEqual([])
    expect(reserve(coin)).toMatchObject({ supplyShares: 0n, available: 0n })
    // the lender, the only supplier, takes out its 10,000 plus all the interest paid
    expect(lender.withdraw(usd, 20_000n * USDC).ok).toBe(true)
    expect(lender.token(usd)).toBe(10_040n * USDC + 1n)
    expect(balanceOf(vaultOf(usd))).toBe(0n)
  })
})
