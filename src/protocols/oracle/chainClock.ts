/**
 * The chain's own time: unix_timestamp of the Clock sysvar, what programs read. Price ages are measured on it,
 * not on this machine's clock, so a service whose clock drifts from the cluster's judges ages as the chain does.
 * Clock layout: slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64.
 */
import { SYSVAR_CLOCK_PUBKEY } from "@solana/web3.js"

export const CLOCK_SYSVAR_ADDRESS = SYSVAR_CLOCK_PUBKEY.toBase58()
const CLOCK_SIZE = 40

/** unix seconds; null when the account is missing or not a Clock. */
export const decodeClockUnixTimestamp = (account: { readonly owner: string; readonly data: Uint8Array } | null | undefined): bigint | null =>
  account === null || account === undefined || account.data.length < CLOCK_SIZE ? null : Buffer.from(account.data).readBigInt64LE(32)
