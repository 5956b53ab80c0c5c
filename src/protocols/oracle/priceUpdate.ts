/**
 * Pyth's PriceUpdateV2 account (pyth-solana-receiver-sdk), so the same reader works against the real price
 * feed accounts on a real cluster: an Anchor account owned by the Pyth receiver program,
 *   discriminator [8], write_authority [32], verification_level (0 Partial + u8 | 1 Full),
 *   feed_id [32], price i64, conf u64, exponent i32, publish_time i64, prev_publish_time i64,
 *   ema_price i64, ema_conf u64, posted_slot u64.
 * Feed accounts are the push oracle's PDAs [shard u16 LE, feed id] (shard 0 on mainnet and here).
 */
import { PublicKey } from "@solana/web3.js"

export const PYTH_RECEIVER_PROGRAM_ID = new PublicKey("rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ")
export const PYTH_PUSH_ORACLE_PROGRAM_ID = new PublicKey("pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT")
export const PRICE_UPDATE_V2_DISCRIMINATOR = Buffer.from([34, 241, 35, 99, 157, 126, 244, 205])
/** PriceUpdateV2::LEN (room for the longer Partial verification level) */
export const PRICE_UPDATE_V2_SIZE = 134

export interface PriceUpdate {
  readonly feedId: string // 64 hex characters
  readonly price: bigint
  readonly conf: bigint
  readonly exponent: number
  readonly publishTime: bigint
  readonly postedSlot: bigint
}

export const feedAccountAddress = (feedIdHex: string, shard = 0): PublicKey => {
  const shardBytes = Buffer.alloc(2)
  shardBytes.writeUInt16LE(shard)
  return PublicKey.findProgramAddressSync([shardBytes, Buffer.from(feedIdHex, "hex")], PYTH_PUSH_ORACLE_PROGRAM_ID)[0]
}

/** Null when the bytes are not a PriceUpdateV2 (wrong discriminator or length). */
export const decodePriceUpdate = (data: Uint8Array): PriceUpdate | null => {
  const bytes = Buffer.from(data)
  if (bytes.length < 133 || !bytes.subarray(0, 8).equals(PRICE_UPDATE_V2_DISCRIMINATOR)) return null
  const level = bytes[40]
  const at = level === 0 ? 42 : level === 1 ? 41 : -1
  if (at < 0 || bytes.length < at + 92) return null
  return {
    feedId: bytes.subarray(at, at + 32).toString("hex"),
    price: bytes.readBigInt64LE(at + 32),
    conf: bytes.readBigUInt64LE(at + 40),
    exponent: bytes.readInt32LE(at + 48),
    publishTime: bytes.readBigInt64LE(at + 52),
    postedSlot: bytes.readBigUInt64LE(at + 84)
  }
}

/** A fully verified update written by `writeAuthority` (the local ledger's operator). */
export const encodePriceUpdate = (update: PriceUpdate, writeAuthority: PublicKey): Buffer => {
  const bytes = Buffer.alloc(PRICE_UPDATE_V2_SIZE)
  PRICE_UPDATE_V2_DISCRIMINATOR.copy(bytes, 0)
  writeAuthority.toBuffer().copy(bytes, 8)
  bytes[40] = 1 // Full
  const at = 41
  Buffer.from(update.feedId, "hex").copy(bytes, at)
  bytes.writeBigInt64LE(update.price, at + 32)
  bytes.writeBigUInt64LE(update.conf, at + 40)
  bytes.writeInt32LE(update.exponent, at + 48)
  bytes.writeBigInt64LE(update.publishTime, at + 52)
  bytes.writeBigInt64LE(update.publishTime, at + 60) // prev_publish_time
  bytes.writeBigInt64LE(update.price, at + 68) // ema_price
  bytes.writeBigUInt64LE(update.conf, at + 76) // ema_conf
  bytes.writeBigUInt64LE(update.postedSlot, at + 84)
  return bytes
}
