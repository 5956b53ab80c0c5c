/**
 * Reads what a wallet's portfolio value needs (docs/decisions/portfolio.md) and values it (portfolioValue.ts):
 * its SOL (the pipeline's pre-balance when given), its SPL token accounts, its indexed positions (PositionRepo),
 * the escrows it funded (EscrowRepo), the Pyth prices of every mint involved and, when it has a stake position,
 * the pool's rate. Four to six reads; the policy engine asks only for wallets with a portfolio limit.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Effect } from "effect"
import { ChainClient } from "../chain/chainClient.js"
import { ChainFacts, decodeMint } from "../chain/chainFacts.js"
import { PositionRepo } from "../positions/positionRepo.js"
import { EscrowRepo } from "../protocols/escrow/escrowRepo.js"
import { feedOfMint } from "../protocols/oracle/feeds.js"
import { OracleFreshness } from "../protocols/oracle/oracleFreshness.js"
import { readMintPrices } from "../protocols/oracle/oracleReads.js"
import { stalenessOf } from "../protocols/oracle/priceFreshness.js"
import { readStakePool } from "../protocols/staking/poolReads.js"
import { LiquidStakingProgram } from "../protocols/staking/program.js"
import {
  BORROW_POSITION, type PortfolioValuationResult, type PriceQuote, STAKE_POSITION, type StaleQuote, SUPPLY_POSITION, valuePortfolio
} from "./portfolioValue.js"

const hasFeed = (mint: string) => feedOfMint(mint) !== undefined

export interface WalletToValue {
  readonly tenantId: string
  readonly walletId: string
  readonly publicKey: string
  /** the SOL balance already read (the pipeline's pre-balance); else read here */
  readonly solLamports?: bigint | undefined
}

export class PortfolioValuation extends Effect.Service<PortfolioValuation>()("PortfolioValuation", {
  dependencies: [PositionRepo.Default, EscrowRepo.Default, ChainFacts.Default, LiquidStakingProgram.Default, OracleFreshness.Default],
  effect: Effect.gen(function* () {
    const chain = yield* ChainClient
    const facts = yield* ChainFacts
    const positionRepo = yield* PositionRepo
    const escrowRepo = yield* EscrowRepo
    const staking = yield* LiquidStakingProgram
    const { maxAgeSeconds } = yield* OracleFreshness

    const valueOf = Effect.fn("PortfolioValuation.valueOf")(function* (wallet: WalletToValue) {
      // chain reads beside the SQL reads; the SQL reads one after the other (they may share the caller's transaction)
      const [solLamports, held, [rows, escrows]] = yield* Effect.all(
        [
          wallet.solLamports === undefined ? chain.getBalance(wallet.publicKey) : Effect.succeed(wallet.solLamports),
          chain.tokenAccounts(wallet.publicKey),
          Effect.all([positionRepo.listForWallet(wallet.tenantId, wallet.walletId), escrowRepo.lockedByCreator(wallet.tenantId, wallet.publicKey)])
        ],
        { concurrency: "unbounded" }
      )
      const positions = rows.map((row) => ({
        protocol: row.protocol, positionType: row.position_type, token: row.token, amount: BigInt(row.amount), valueLamports: BigInt(row.value_lamports)
      }))
      const lending = positions.filter((p) => p.positionType === SUPPLY_POSITION || p.positionType === BORROW_POSITION).map((p) => p.token)
      const mints = [...new Set([NATIVE_MINT.toBase58(), ...held.filter((t) => t.amount !== "0").map((t) => t.mint), ...lending])]
      const hasStake = positions.some((p) => p.positionType === STAKE_POSITION)
      const [quotes, mintAccounts, pool] = yield* Effect.all(
        [
          readMintPrices(facts.accounts, mints),
          lending.length === 0 ? Effect.succeed([]) : facts.accounts(lending),
          // an unreadable pool values no stake (fail closed in valuePortfolio), never a guess
          hasStake ? readStakePool(facts.accounts, staking, "portfolio value").pipe(Effect.orElseSucceed(() => null)) : Effect.succeed(null)
        ],
        { concurrency: "unbounded" }
      )
      const prices = new Map<string, PriceQuote | StaleQuote | null>()
      mints.forEach((mint, i) => {
        const quote = quotes[i]
        // null from readMintPrices: no feed for the mint (absent here), or a feed without a valid update (null here)
        if (quote !== null && quote !== undefined) {
          const stale = stalenessOf(quote, maxAgeSeconds)
          prices.set(mint, stale === null ? { price: quote.update.price, exponent: quote.update.exponent } : { stale: stale.message })
        } else if (quote === null && hasFeed(mint)) prices.set(mint, null)
      })
      const decimals = new Map<string, number>()
      lending.forEach((mint, i) => {
        const account = mintAccounts[i]
        if (account !== null && account !== undefined && account.data.length >= 45) decimals.set(mint, decodeMint(account.data).decimals)
      })
      const result: PortfolioValuationResult = valuePortfolio({
        solLamports,
        tokens: held.map((t) => ({ mint: t.mint, amount: BigInt(t.amount), decimals: t.decimals })),
        positions,
        escrows,
        prices,
        decimals,
        pool: pool === null ? null : { lstMint: pool.state.lstMint.toBase58(), totalLamports: pool.state.totalLamports, lstSupply: pool.lstSupply }
      })
      return result
    })

    return { valueOf }
  })
}) {}
