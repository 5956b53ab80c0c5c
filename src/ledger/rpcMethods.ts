// The ledger's JSON-RPC method table: chain information here, accounts and transactions in their own groups.
import { accountMethods } from "./accountMethods.js"
import { oracleMethods } from "./oracleMethods.js"
import { stakingMethods } from "./stakingMethods.js"
import { MAX_PROCESSING_AGE } from "./blockhashes.js"
import { optionalConfig, requireString, type RpcHandler, type RpcMethodTable } from "./jsonRpc.js"
import { SLOTS_PER_EPOCH, type Ledger } from "./ledger.js"
import { checkMinContextSlot, context, LEDGER_VERSION } from "./rpcParams.js"
import { transactionMethods } from "./transactionMethods.js"

/** A feature-set identifier for getVersion; clients only display it. */
const FEATURE_SET = 3294202862

function chainMethods(ledger: Ledger): Array<[string, RpcHandler]> {
  // Single node without skipped slots: block height equals the slot.
  const slotReader: RpcHandler = (params) => {
    checkMinContextSlot(ledger, optionalConfig(params, 0))
    return ledger.slot
  }
  return [
    ["getHealth", () => "ok"],
    ["getVersion", () => ({ "feature-set": FEATURE_SET, "solana-core": LEDGER_VERSION })],
    ["getGenesisHash", () => ledger.genesisHash],
    ["getIdentity", () => ({ identity: ledger.genesisHash })],
    ["getSlot", slotReader],
    ["getBlockHeight", slotReader],
    ["getTransactionCount", () => ledger.transactionCount],
    ["getFirstAvailableBlock", () => 0],
    ["minimumLedgerSlot", () => 0],
    ["getEpochInfo", () => ({
      absoluteSlot: ledger.slot,
      blockHeight: ledger.slot,
      epoch: Math.floor(ledger.slot / SLOTS_PER_EPOCH),
      slotIndex: ledger.slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ledger.transactionCount
    })],
    ["getEpochSchedule", () => ({
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
      leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
      slotsPerEpoch: SLOTS_PER_EPOCH,
      warmup: false
    })],
    ["getLatestBlockhash", (params) => {
      checkMinContextSlot(ledger, optionalConfig(params, 0))
      const latest = ledger.window.latestEntry()
      return {
        context: context(ledger),
        value: { blockhash: latest.blockhash, lastValidBlockHeight: latest.slot + MAX_PROCESSING_AGE }
      }
    }],
    ["isBlockhashValid", (params) => {
      const blockhash = requireString(params, 0, "blockhash")
      return { context: context(ledger), value: ledger.window.isValid(blockhash, ledger.slot) }
    }]
  ]
}

export function createRpcMethods(ledger: Ledger): RpcMethodTable {
  return new Map([...chainMethods(ledger), ...accountMethods(ledger), ...transactionMethods(ledger), ...oracleMethods(ledger), ...stakingMethods(ledger)])
}
