/**
 * POST /defi/stake and /defi/unstake (bodies in docs/decisions/staking.md): the pool's live exchange rate, what
 * the amount gets now, the unsigned transaction the adapter would build, and the POST /transactions request
 * that executes it through the pipeline (the only path that signs). A protocol without stake/unstake
 * (lending-market) is the spec's build failure; liquid-staking not deployed here fails closed the same way.
 */
import { PublicKey, Transaction } from "@solana/web3.js"
import { Effect } from "effect"
import { DefiApi, StakeRewardsBody } from "../../../schemas/api/defi.js"
import { PipelineError, UpstreamUnavailable, ValidationError } from "../../../schemas/errors.js"
import { StakeBody, UnstakeBody } from "../../../schemas/protocol.js"
import { ChainClient } from "../../chain/chainClient.js"
import { Caller } from "../../gateway/caller.js"
import { ok } from "../../gateway/envelope.js"
import { decodeBody } from "../../gateway/request.js"
import { route } from "../../gateway/route.js"
import { ChainFacts } from "../../chain/chainFacts.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import type { AdapterInputError } from "../adapterError.js"
import type { BuiltTransaction } from "../builtTransaction.js"
import { lamportsForUnstake, lstForStake } from "./layout.js"
import { readStakePool, type StakePoolView } from "./poolReads.js"
import { LiquidStakingProgram } from "./program.js"
import { buildStake, buildUnstake } from "./stakeBuilder.js"

const refusedAtBuild = (error: AdapterInputError) => new PipelineError({ stage: "build", message: error.message })
const upstream = (error: { readonly message: string }) => new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` })
const mapErrors = { AdapterInputError: (e: AdapterInputError) => Effect.fail(refusedAtBuild(e)), RpcUnavailableError: (e: { message: string }) => Effect.fail(upstream(e)), RpcApplicationError: (e: { message: string }) => Effect.fail(upstream(e)) }

export const poolToWire = (pool: StakePoolView) => ({
  programId: pool.programId.toBase58(),
  address: pool.address.toBase58(),
  lstMint: pool.state.lstMint.toBase58(),
  totalLamports: pool.state.totalLamports.toString(),
  lstSupply: pool.lstSupply.toString(),
  lamportsPerLst: pool.lamportsPerLst.toString(),
  unstakeFeeBps: pool.state.feeBps
})

const onlyLiquidStaking = (protocol: string, operation: string) =>
  protocol === "liquid-staking" ? Effect.void : Effect.fail(new PipelineError({ stage: "build", message: `${protocol} has no ${operation}: use protocol liquid-staking` }))

const currentPool = (operation: string) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    return yield* readStakePool(facts.accounts, yield* LiquidStakingProgram, operation).pipe(Effect.catchTags(mapErrors))
  })

/** The preview and the execute request, as /defi/swap answers them. */
const preview = (wallet: string, type: "stake" | "unstake", built: BuiltTransaction, intent: Record<string, string>) =>
  Effect.gen(function* () {
    const chain = yield* ChainClient
    const { value } = yield* chain.rpc<{ value: { blockhash: string } }>("getLatestBlockhash", [{ commitment: "confirmed" }]).pipe(Effect.mapError(upstream))
    const unsigned = new Transaction({ feePayer: new PublicKey(wallet), recentBlockhash: value.blockhash }).add(...built.instructions)
    const caller = yield* Caller
    const { wallets } = yield* (yield* WalletRepo).list(caller.readTenant, { limit: 1, offset: 0, publicKey: wallet })
    return {
      transaction: {
        unsignedTransaction: unsigned.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
        encoding: "base64",
        programIds: built.programIds,
        instructions: built.instructions.length,
        note: `preview only: the service signs a ${type} only through POST /api/v1/transactions (policy, risk, approval, proof); the pipeline adds compute budget instructions and a fresh blockhash`
      },
      execute: { method: "POST", path: "/api/v1/transactions", body: { walletId: wallets[0]?.id ?? null, type, protocol: "liquid-staking", intent } }
    }
  })

const stake = Effect.gen(function* () {
  const body = yield* decodeBody(StakeBody)
  yield* onlyLiquidStaking(body.protocol, "stake")
  const pool = yield* currentPool("stake")
  const wallet = new PublicKey(body.wallet)
  const intent = { amount: body.amount, ...(body.validator === undefined ? {} : { validator: body.validator }) }
  const built = yield* buildStake({ type: "stake", protocol: body.protocol, wallet, intent }).pipe(Effect.catchTags(mapErrors))
  const lst = lstForStake(body.amount, pool.state.totalLamports, pool.lstSupply)
  return ok({
    quote: { protocol: body.protocol, wallet: body.wallet, amountLamports: body.amount.toString(), lstAmount: lst.toString(), minimumLst: built.facts.minimumOut?.toString(), pool: poolToWire(pool) },
    ...(yield* preview(body.wallet, "stake", built, { amount: body.amount.toString(), ...(body.validator === undefined ? {} : { validator: body.validator }) }))
  })
})

const unstake = Effect.gen(function* () {
  const body = yield* decodeBody(UnstakeBody)
  yield* onlyLiquidStaking(body.protocol, "unstake")
  const pool = yield* currentPool("unstake")
  const wallet = new PublicKey(body.wallet)
  const built = yield* buildUnstake({ type: "unstake", protocol: body.protocol, wallet, intent: { amount: body.amount } }).pipe(Effect.catchTags(mapErrors))
  const { gross, fee, net } = lamportsForUnstake(body.amount, pool.state.totalLamports, pool.lstSupply, pool.state.feeBps)
  return ok({
    quote: {
      protocol: body.protocol, wallet: body.wallet, lstAmount: body.amount.toString(), grossLamports: gross.toString(), feeLamports: fee.toString(),
      lamports: net.toString(), minimumLamports: built.facts.minimumOut?.toString(), pool: poolToWire(pool)
    },
    ...(yield* preview(body.wallet, "unstake", built, { amount: body.amount.toString() }))
  })
})

/** The operator's reward crank on the local ledger (its `addStakeRewards` method); a real cluster has no such method. */
const addRewards = Effect.gen(function* () {
  const body = yield* decodeBody(StakeRewardsBody)
  const pool = yield* currentPool("add_rewards")
  const chain = yield* ChainClient
  yield* chain.rpc<{ signature: string }>("addStakeRewards", [pool.programId.toBase58(), body.lamports]).pipe(
    Effect.catchTag("RpcApplicationError", (error) =>
      Effect.fail(new ValidationError({ message: `lamports: this ledger does not take operator rewards (only the local ledger does): ${error.message}`, field: "lamports" }))
    ),
    Effect.mapError((error) => (error._tag === "ValidationError" ? error : upstream(error)))
  )
  return ok({ rewardLamports: body.lamports, pool: poolToWire(yield* currentPool("add_rewards")) })
})

export const stakingRoutes = [
  route(DefiApi.stake, stake),
  route(DefiApi.unstake, unstake),
  route(DefiApi.stakeRewards, addRewards, "deployment")
]
