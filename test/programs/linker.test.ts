// The linker: its output for small committed C objects runs in litesvm; malformed objects are refused clearly.
import { readFileSync } from "node:fs"
import { PublicKey, TransactionInstruction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { linkObjects, LinkError, type ObjectInput } from "../../programs/linker/link.js"
import { readElfObject } from "../../programs/linker/elf.js"
import { TestLedger } from "./ledger.js"

const fixture = (path: string): ObjectInput => ({ name: path, bytes: readFileSync(new URL(`fixtures/${path}`, import.meta.url)) })
const hello = fixture("hello/hello.o")
const helper = fixture("hello/helper.o")
const noRodata = fixture("norodata/entry.o")
const writable = fixture("writable/data.o")

const TEST_PROGRAM_ID = new PublicKey("Link111111111111111111111111111111111111111")

const run = (program: Uint8Array, data: number[]) => {
  const ledger = new TestLedger()
  ledger.addProgram(TEST_PROGRAM_ID, program)
  return ledger.send([new TransactionInstruction({ programId: TEST_PROGRAM_ID, keys: [], data: Buffer.from(data) })])
}

interface OutputSection {
  name: string
  type: number
  addr: bigint
  offset: bigint
  size: bigint
}

/** Reads the output's header and section table (the linker's own reader only takes relocatable objects). */
const inspect = (so: Uint8Array) => {
  const view = new DataView(so.buffer, so.byteOffset, so.byteLength)
  const shoff = Number(view.getBigUint64(40, true))
  const shnum = view.getUint16(60, true)
  const shstrndx = view.getUint16(62, true)
  const header = (i: number) => shoff + i * 64
  const namesAt = Number(view.getBigUint64(header(shstrndx) + 24, true))
  const nameOf = (offset: number) => {
    const start = namesAt + offset
    return new TextDecoder().decode(so.subarray(start, so.indexOf(0, start)))
  }
  const sections: OutputSection[] = Array.from({ length: shnum }, (_, i) => ({
    name: nameOf(view.getUint32(header(i), true)),
    type: view.getUint32(header(i) + 4, true),
    addr: view.getBigUint64(header(i) + 16, true),
    offset: view.getBigUint64(header(i) + 24, true),
    size: view.getBigUint64(header(i) + 32, true)
  }))
  return { type: view.getUint16(16, true), machine: view.getUint16(18, true), flags: view.getUint32(48, true), sections }
}

describe("linker output", () => {
  it("runs in litesvm: logs its rodata strings and calls across objects", () => {
    const program = linkObjects([hello, helper])
    const quiet = run(program, [])
    expect(quiet.ok).toBe(true)
    expect(quiet.logs).toContain("Program log: hello from the linker fixture")

    const summed = run(program, [1, 2, 3, 250])
    expect(summed.customError).toBe(1000 + 256)
    expect(summed.logs).toContain("Program log: summing instruction data")
  })

  it("is an SBPFv0 shared object whose loaded sections sit at their file offsets", () => {
    const out = inspect(linkObjects([hello, helper]))
    expect(out.type).toBe(3) // ET_DYN
    expect(out.machine).toBe(247) // EM_BPF
    expect(out.flags).toBe(0)
    const names = out.sections.map((s) => s.name)
    expect(names).toEqual(["", ".text", ".rodata", ".dynsym", ".dynstr", ".rel.dyn", ".dynamic", ".shstrtab"])
    for (const section of out.sections.filter((s) => s.name !== "" && s.name !== ".shstrtab")) {
      expect(section.addr).toBe(section.offset)
    }
  })

  it("points lddw at 0x1_0000_0000 plus the rodata file offset", () => {
    const so = linkObjects([hello, helper])
    const { sections } = inspect(so)
    const text = sections.find((s) => s.name === ".text")
    const rodata = sections.find((s) => s.name === ".rodata")
    if (text === undefined || rodata === undefined) throw new Error("missing sections")
    const view = new DataView(so.buffer, so.byteOffset)
    const loads: bigint[] = []
    for (let at = Number(text.offset); at < Number(text.offset + text.size); at += 8) {
      if (so[at] === 0x18) {
        loads.push(BigInt(view.getUint32(at + 4, true)) | (BigInt(view.getUint32(at + 12, true)) << 32n))
        at += 8
      }
    }
    // Relocated loads are the ones in the read-only region; others are constants (the heap address, say).
    const relocatedCount = [hello, helper]
      .map((input) => readElfObject(input.name, input.bytes))
      .flatMap((o) => [...o.relocations.values()].flat())
      .filter((r) => r.type === 1).length
    const readOnlyLoads = loads.filter((vaddr) => vaddr >> 32n === 1n)
    expect(relocatedCount).toBeGreaterThan(0)
    expect(readOnlyLoads).toHaveLength(relocatedCount)
    for (const vaddr of readOnlyLoads) {
      expect(vaddr - 0x1_0000_0000n).toBeGreaterThanOrEqual(rodata.offset)
      expect(vaddr - 0x1_0000_0000n).toBeLessThan(rodata.offset + rodata.size)
    }
  })

  it("omits .rodata when there is none, and the program still loads", () => {
    const program = linkObjects([noRodata])
    expect(inspect(program).sections.map((s) => s.name)).not.toContain(".rodata")
    expect(run(program, []).customError).toBe(42)
  })

  it("is deterministic", () => {
    expect(Buffer.from(linkObjects([hello, helper])).equals(Buffer.from(linkObjects([hello, helper])))).toBe(true)
  })
})

describe("linker refusals", () => {
  const refuses = (inputs: ObjectInput[], message: RegExp) => {
    expect(() => linkObjects(inputs)).toThrowError(LinkError)
    expect(() => linkObjects(inputs)).toThrowError(message)
  }
  const patched = (input: ObjectInput, patch: (bytes: Uint8Array, view: DataView) => void): ObjectInput => {
    const bytes = new Uint8Array(input.bytes)
    patch(bytes, new DataView(bytes.buffer))
    return { name: `${input.name} (patched)`, bytes }
  }

  it("refuses a file that is not ELF", () => {
    refuses([{ name: "notes.txt", bytes: new TextEncoder().encode("this is not an object file at all, just text") }], /notes\.txt: not an ELF object/)
  })

  it("refuses a truncated object", () => {
    refuses([{ name: "cut.o", bytes: hello.bytes.subarray(0, 200) }], /cut\.o: .*(truncated|past the end)/)
  })

  it("refuses an object for another machine", () => {
    refuses([patched(hello, (_, v) => v.setUint16(18, 62, true)), helper], /not a BPF object/)
  })

  it("refuses a big-endian object", () => {
    refuses([patched(hello, (b) => (b[5] = 2))], /little-endian/)
  })

  it("refuses a linked program as input", () => {
    refuses([{ name: "escrow.so", bytes: linkObjects([hello, helper]) }], /not a relocatable object/)
  })

  it("refuses a relocation against a symbol that does not exist", () => {
    const object = readElfObject(hello.name, hello.bytes)
    const rel = object.sections.find((s) => s.name === ".rel.text")
    if (rel === undefined) throw new Error("fixture has no .rel.text")
    refuses([patched(hello, (_, v) => v.setUint32(rel.offset + 12, 999, true)), helper], /symbol 999, which does not exist/)
  })

  it("refuses unknown relocation types and relocations that do not fit their instruction", () => {
    const object = readElfObject(hello.name, hello.bytes)
    const rel = object.sections.find((s) => s.name === ".rel.text")
    const relocations = object.relocations.get(object.sections.findIndex((s) => s.name === ".text")) ?? []
    const lddwIndex = relocations.findIndex((r) => r.type === 1)
    if (rel === undefined || lddwIndex < 0) throw new Error("fixture has no lddw relocation")
    const typeAt = rel.offset + lddwIndex * 16 + 8
    refuses([patched(hello, (_, v) => v.setUint32(typeAt, 77, true)), helper], /unknown relocation type 77/)
    refuses([patched(hello, (_, v) => v.setUint32(typeAt, 10, true)), helper], /R_BPF_64_32 at .* does not patch a call instruction/)
  })

  it("refuses an undefined function that is not a syscall", () => {
    refuses([hello], /undefined symbol sum_bytes .*neither defined in the objects nor a known syscall/)
  })

  it("refuses objects without an entrypoint", () => {
    refuses([helper], /no global function named entrypoint/)
  })

  it("refuses a symbol defined twice", () => {
    refuses([hello, helper, { ...helper, name: "copy/helper.o" }], /symbol sum_bytes is defined here and in hello\/helper\.o/)
  })

  it("refuses writable global data", () => {
    refuses([writable], /writable global data/)
  })

  it("refuses an empty input list", () => {
    refuses([], /nothing to link/)
  })
})
