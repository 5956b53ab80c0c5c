/**
 * The local ledger's reward crank for the liquid-staking pool: `addStakeRewards` [programId, lamports] runs the
 * program's add_rewards, signed by the pool authority (the seed authority, funded here as a real cluster's
 * staking rewards would be), as a normal transaction of this ledger (history, signatures, subscriptions). A
 * local-ledger method, like setPythPriceUpdate: on a real cluster the pool's operator runs the crank itself.
 */
import { address, lamports as lamportsOf } from "@solana/kit"
import { PublicKey, Transaction } from "@solana/web3.js"
import { SEED_AUTHORITY } from "../protocols/amm/localPools.js"
import { addRewardsInstruction } from "../protocols/staking/instructions.js"
import { decodeStakePool, stakePoolAddress } from "../protocols/staking/layout.js"
import { executeTransaction } from "./execution.js"
import { InvalidParamsError, requireString, type RpcHandler } from "./jsonRpc.js"
import type { Ledger } from "./ledger.js"
import { parseWireTransaction } from "./wireTransaction.js"

const FEE_RESERVE = 10_000_000n

export function stakingMethods(ledger: Ledger): Array<[string, RpcHandler]> {
  return [
    ["addStakeRewards", (params) => {
      let programId: PublicKey
      try {
        programId = new PublicKey(requireString(params, 0, "program id"))
      } catch {
        throw new InvalidParamsError("Invalid params: program id must be a base58 public key")
      }
      const text = requireString(params, 1, "lamports")
      if (!/^[1-9][0-9]{0,17}$/.test(text)) throw new InvalidParamsError("Invalid params: lamports must be a positive integer string")
      const rewards = BigInt(text)
      const pool = ledger.svm.getAccount(address(stakePoolAddress(programId).toBase58()))
      if (!pool.exists || decodeStakePool(pool.data) === null) throw new InvalidParamsError(`Invalid params: no stake pool of program ${programId.toBase58()}`)
      ledger.svm.airdrop(address(SEED_AUTHORITY.publicKey.toBase58()), lamportsOf(rewards + FEE_RESERVE))
      const tx = new Transaction({ feePayer: SEED_AUTHORITY.publicKey, recentBlockhash: ledger.window.latestEntry().blockhash })
      tx.add(addRewardsInstruction(programId, SEED_AUTHORITY.publicKey, rewards))
      tx.sign(SEED_AUTHORITY)
      const outcome = executeTransaction(ledger, parseWireTransaction(tx.serialize()))
      if (outcome.kind !== "processed" || outcome.record.err !== null) {
        const err = outcome.kind === "processed" ? outcome.record.err : outcome.err
        throw new InvalidParamsError(`add_rewards failed: ${JSON.stringify(err)}`)
      }
      ledger.dirty = true
      const after = ledger.svm.getAccount(address(stakePoolAddress(programId).toBase58()))
      const state = after.exists ? decodeStakePool(after.data) : null
      return { signature: outcome.record.signature, totalLamports: state?.totalLamports.toString() ?? null, totalRewards: state?.totalRewards.toString() ?? null }
    }]
  ]
}
