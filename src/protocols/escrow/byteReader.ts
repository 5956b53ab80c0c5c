// Sequential little-endian reader over account data or event payloads.
import { PublicKey } from "@solana/web3.js"

export class ByteReader {
  private at = 0
  private readonly view: DataView

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get offset(): number {
    return this.at
  }

  private take(size: number): number {
    if (this.at + size > this.bytes.length) throw new RangeError(`read of ${size} bytes at ${this.at} passes the end (${this.bytes.length})`)
    const start = this.at
    this.at += size
    return start
  }

  u8(): number {
    return this.view.getUint8(this.take(1))
  }
  u16(): number {
    return this.view.getUint16(this.take(2), true)
  }
  u64(): bigint {
    return this.view.getBigUint64(this.take(8), true)
  }
  i64(): bigint {
    return this.view.getBigInt64(this.take(8), true)
  }
  bytes32(): Uint8Array {
    const start = this.take(32)
    return this.bytes.slice(start, start + 32)
  }
  pubkey(): PublicKey {
    return new PublicKey(this.bytes32())
  }
}
