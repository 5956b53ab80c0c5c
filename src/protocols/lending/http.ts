/**
 * POST /defi/lend/supply, /borrow, /withdraw and /repay (bodies in docs/decisions/lending.md): the mint's reserve, the
 * wallet's lending account now (positions and health factor), the unsigned transaction the adapter would build,
 * and the POST /transactions request that executes it through the pipeline (the only path that signs). A borrow
 * or a withdrawal is not pre-judged here: the program's health check decides on chain. Not configured or
 * deployed: fails closed.
 */
import { PublicKey, Transaction } from "@solana/web3.js"
import { Effect } from "effect"
import { LendingApi } from "../../../schemas/api/lending.js"
import { PipelineError, UpstreamUnavailable } from "../../../schemas/errors.js"
import { LendBody } from "../../../schemas/protocol.js"
import { ChainClient } from "../../chain/chainClient.js"
import { Caller } from "../../gateway/caller.js"
import { ok } from "../../gateway/envelope.js"
import { decodeBody } from "../../gateway/request.js"
import { route } from "../../gateway/route.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import type { AdapterInputError } from "../adapterError.js"
import { buildLendBorrow, buildLendSupply } from "./builders.js"
import { buildLendRepay, buildLendWithdraw } from "./withdrawRepay.js"
import { currentIndex, INDEX_ONE } from "./layout.js"
import { readReserve, type ReserveView } from "./marketReads.js"
import { readLendingView } from "./obligationView.js"
import { LendingMarketProgram } from "./program.js"
import { OracleFreshness } from "../oracle/oracleFreshness.js"
import type { StalePriceError } from "../oracle/priceFreshness.js"

const refusedAtBuild = (error: AdapterInputError) => new PipelineError({ stage: "build", message: error.message })
const upstream = (error: { readonly message: string }) => new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` })
const mapErrors = {
  AdapterInputError: (e: AdapterInputError) => Effect.fail(refusedAtBuild(e)),
  RpcUnavailableError: (e: { message: string }) => Effect.fail(upstream(e)),
  RpcApplicationError: (e: { message: string }) => Effect.fail(upstream(e))
}

const reserveToWire = (programId: PublicKey, reserve: ReserveView, now: bigint) => {
  const index = currentIndex(reserve.state, now)
  return {
    programId: programId.toBase58(),
    address: reserve.address.toBase58(),
    mint: reserve.state.mint.toBase58(),
    vault: reserve.state.vault.toBase58(),
    oracle: reserve.state.oracle.toBase58(),
    collateralFactorBps: reserve.state.collateralFactorBps,
    borrowRateBps: reserve.state.borrowRateBps,
    flashFeeBps: reserve.state.flashFeeBps,
    available: reserve.state.available.toString(),
    borrowed: ((reserve.state.borrowedScaled * index) / INDEX_ONE).toString(),
    borrowIndex: index.toString()
  }
}

type LendOperation = "lend_supply" | "lend_borrow" | "lend_withdraw" | "lend_repay"

const build = (operation: LendOperation, request: { readonly protocol: string; readonly wallet: PublicKey; readonly intent: { readonly mint: string; readonly amount: bigint } }) => {
  switch (operation) {
    case "lend_supply":
      return buildLendSupply({ ...request, type: operation })
    case "lend_borrow":
      return buildLendBorrow({ ...request, type: operation })
    case "lend_withdraw":
      return buildLendWithdraw({ ...request, type: operation })
    case "lend_repay":
      return buildLendRepay({ ...request, type: operation })
  }
}

const NOTES: Readonly<Record<LendOperation, string>> = {
  lend_supply: "supplied tokens earn the reserve's interest as supply shares; they count as collateral at the reserve's collateral factor",
  lend_borrow: "the program refuses on chain a borrow that leaves borrowed value above collateral value x collateral factor (error 7221)",
  lend_withdraw:
    "at most amount is withdrawn (at or above the supply's worth: all of it); the program refuses on chain a withdrawal that leaves borrowed value above the remaining collateral value x collateral factor (error 7228)",
  lend_repay: "at most the debt with interest to the second is repaid: an amount above it pays exactly the debt and clears the borrow"
}

const helper = (operation: LendOperation) =>
  Effect.gen(function* () {
    const body = yield* decodeBody(LendBody)
    const facts = yield* ChainFacts
    const program = yield* LendingMarketProgram
    const freshness = yield* OracleFreshness
    const wallet = new PublicKey(body.wallet)
    const mint = new PublicKey(body.mint)
    const reserve = yield* readReserve(facts.accounts, program, mint, operation).pipe(Effect.catchTags(mapErrors))
    const intent = { mint: body.mint, amount: body.amount }
    const request = { protocol: body.protocol, wallet, intent }
    const built = yield* build(operation, request).pipe(
      Effect.provideService(ChainFacts, facts),
      Effect.provideService(LendingMarketProgram, program),
      Effect.provideService(OracleFreshness, freshness),
      // an oracle price too old to borrow on: refused as the pipeline's build would (fail closed)
      Effect.catchTags({ ...mapErrors, StalePriceError: (e: StalePriceError) => Effect.fail(new PipelineError({ stage: "build", message: e.message })) })
    )
    const now = BigInt(Math.floor(Date.now() / 1000))
    const account = yield* readLendingView(facts.accounts, program.programId, wallet, now, freshness.maxAgeSeconds).pipe(Effect.mapError(upstream))

    const chain = yield* ChainClient
    const { value } = yield* chain.rpc<{ value: { blockhash: string } }>("getLatestBlockhash", [{ commitment: "confirmed" }]).pipe(Effect.mapError(upstream))
    const unsigned = new Transaction({ feePayer: wallet, recentBlockhash: value.blockhash }).add(...built.instructions)
    const caller = yield* Caller
    const { wallets } = yield* (yield* WalletRepo).list(caller.readTenant, { limit: 1, offset: 0, publicKey: body.wallet })
    return ok({
      quote: {
        protocol: "lending-market" as const, operation, wallet: body.wallet, mint: body.mint, amount: body.amount.toString(),
        reserve: reserveToWire(program.programId, reserve, now),
        account: {
          positions: account.positions.map((p) => ({
            type: p.type, mint: p.mint, amount: p.amount.toString(), ...(p.valueLamports === null ? {} : { valueLamports: p.valueLamports.toString() }),
            ...(p.valueUnavailable === null ? {} : { valueUnavailable: p.valueUnavailable })
          })),
          healthFactor: account.healthFactor
        },
        note: NOTES[operation]
      },
      transaction: {
        unsignedTransaction: unsigned.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
        encoding: "base64" as const,
        programIds: built.programIds,
        instructions: built.instructions.length,
        note: `preview only: the service signs a ${operation} only through POST /api/v1/transactions (policy, risk, approval, proof); the pipeline adds compute budget instructions and a fresh blockhash`
      },
      execute: {
        method: "POST" as const, path: "/api/v1/transactions" as const,
        body: { walletId: wallets[0]?.id ?? null, type: operation, protocol: "lending-market" as const, intent: { mint: body.mint, amount: body.amount.toString() } }
      }
    })
  })

export const lendingRoutes = [
  route(LendingApi.supply, helper("lend_supply")),
  route(LendingApi.borrow, helper("lend_borrow")),
  route(LendingApi.withdraw, helper("lend_withdraw")),
  route(LendingApi.repay, helper("lend_repay"))
]
