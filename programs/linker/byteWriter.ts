// A growable little-endian byte buffer with absolute-offset writes, for building the output ELF.
export class ByteWriter {
  private buffer = new Uint8Array(4096)
  private view = new DataView(this.buffer.buffer)
  length = 0

  private ensure(end: number): void {
    if (end <= this.buffer.length) return
    let size = this.buffer.length
    while (size < end) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buffer)
    this.buffer = next
    this.view = new DataView(next.buffer)
  }

  /** Pads with zeros up to the next multiple of `alignment` and returns the new length. */
  align(alignment: number): number {
    const target = Math.ceil(this.length / alignment) * alignment
    this.ensure(target)
    this.length = target
    return target
  }

  append(bytes: Uint8Array): number {
    const at = this.length
    this.ensure(at + bytes.length)
    this.buffer.set(bytes, at)
    this.length += bytes.length
    return at
  }

  reserve(size: number): number {
    const at = this.length
    this.ensure(at + size)
    this.length += size
    return at
  }

  u8(at: number, value: number): void {
    this.view.setUint8(at, value)
  }
  u16(at: number, value: number): void {
    this.view.setUint16(at, value, true)
  }
  u32(at: number, value: number): void {
    this.view.setUint32(at, value, true)
  }
  u64(at: number, value: bigint | number): void {
    this.view.setBigUint64(at, BigInt(value), true)
  }

  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }
}

/** A string table (.dynstr, .shstrtab): offset 0 is the empty string; equal strings share an entry. */
export class StringTable {
  private readonly offsets = new Map<string, number>()
  private readonly parts: Uint8Array[] = [new Uint8Array([0])]
  private size = 1

  add(text: string): number {
    if (text === "") return 0
    const known = this.offsets.get(text)
    if (known !== undefined) return known
    const encoded = new TextEncoder().encode(`${text}\0`)
    const at = this.size
    this.offsets.set(text, at)
    this.parts.push(encoded)
    this.size += encoded.length
    return at
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.size)
    let at = 0
    for (const part of this.parts) {
      out.set(part, at)
      at += part.length
    }
    return out
  }
}
