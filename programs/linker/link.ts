// Links BPF relocatable objects into one SBPFv0 program (see sharedObject.ts for the output format).
//
// Resolution rules:
//  - lddw (R_BPF_64_64) and 64-bit data pointers (R_BPF_64_ABS64) become absolute VM addresses:
//    0x1_0000_0000 + the target's file offset, so the loader has nothing left to relocate for them;
//  - calls (R_BPF_64_32) to a defined function become pc-relative `call imm`;
//  - calls to an undefined symbol must name a known syscall: they stay `call -1` with a dynamic
//    R_BPF_64_32 relocation against that name, which the loader turns into the murmur3 hash.
import { readElfObject, type ElfObject, type ElfSection, type ElfSymbol } from "./elf.js"
import {
  INSN_SIZE, MM_RODATA_START, OP_CALL, OP_LDDW, R_BPF_64_32, R_BPF_64_64, R_BPF_64_ABS32, R_BPF_64_ABS64, R_BPF_64_NODYLD32,
  R_BPF_NONE, SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHN_ABS, SHN_COMMON, SHN_UNDEF, SHT_NOBITS, SHT_PROGBITS, STB_LOCAL,
  STB_WEAK
} from "./elfConstants.js"
import { LinkError } from "./linkError.js"
import { planLayout, writeSharedObject, type SyscallSite } from "./sharedObject.js"
import { KNOWN_SYSCALLS } from "./syscalls.js"

export interface ObjectInput {
  /** Shown in error messages. */
  readonly name: string
  readonly bytes: Uint8Array
}

type Region = "text" | "rodata"

interface Piece {
  readonly object: ElfObject
  readonly section: ElfSection
  readonly region: Region
  /** Offset inside its region (text or rodata) before the layout is known. */
  readonly regionOffset: number
}

const ENTRYPOINT = "entrypoint"

const classify = (object: ElfObject, section: ElfSection): Region | undefined => {
  if ((section.flags & SHF_ALLOC) === 0n || section.size === 0) return undefined
  const where = `section ${section.name}`
  if (section.type === SHT_NOBITS) {
    throw new LinkError(object.file, `${where} holds zero-initialized writable data (.bss), which SBPF programs cannot have: make it const or use the heap`)
  }
  if (section.type !== SHT_PROGBITS) throw new LinkError(object.file, `${where} has unsupported type ${section.type}`)
  if ((section.flags & SHF_EXECINSTR) !== 0n) {
    if (section.size % INSN_SIZE !== 0) throw new LinkError(object.file, `${where} size ${section.size} is not a whole number of instructions`)
    return "text"
  }
  if ((section.flags & SHF_WRITE) !== 0n && !section.name.startsWith(".data.rel.ro")) {
    throw new LinkError(object.file, `${where} holds writable global data, which SBPF programs cannot have: make it const or use the heap`)
  }
  return "rodata"
}

const alignUp = (n: number, alignment: number): number => Math.ceil(n / alignment) * alignment

export const linkObjects = (inputs: ReadonlyArray<ObjectInput>): Uint8Array => {
  if (inputs.length === 0) throw new LinkError("(no input)", "nothing to link")
  const objects = inputs.map((input) => readElfObject(input.name, input.bytes))

  // Place every loadable input section inside its region, in input order (deterministic).
  const pieces: Piece[] = []
  const regionSize: Record<Region, number> = { text: 0, rodata: 0 }
  for (const object of objects) {
    for (const section of object.sections) {
      const region = classify(object, section)
      if (region === undefined) continue
      const alignment = region === "text" ? INSN_SIZE : Math.max(1, section.align)
      const regionOffset = alignUp(regionSize[region], alignment)
      pieces.push({ object, section, region, regionOffset })
      regionSize[region] = regionOffset + section.size
    }
  }
  if (regionSize.text === 0) throw new LinkError(inputs[0].name, "no code: the objects have no executable section")
  const layout = planLayout(regionSize.text, regionSize.rodata > 0)
  const regionBase: Record<Region, number> = { text: layout.textOffset, rodata: layout.rodataOffset }
  const placed = new Map<ElfObject, Map<number, Piece>>(objects.map((o) => [o, new Map()]))
  for (const piece of pieces) placed.get(piece.object)?.set(piece.section.index, piece)
  const addressOf = (piece: Piece): number => regionBase[piece.region] + piece.regionOffset

  // Global symbols: one strong definition per name; a weak one yields to a strong one.
  const globals = new Map<string, { address: number; weak: boolean; file: string; inText: boolean }>()
  for (const object of objects) {
    for (const symbol of object.symbols) {
      if (symbol.bind === STB_LOCAL || symbol.sectionIndex === SHN_UNDEF) continue
      if (symbol.sectionIndex === SHN_COMMON) throw new LinkError(object.file, `symbol ${symbol.name} is a common symbol: compile with -fno-common`)
      const piece = placed.get(object)?.get(symbol.sectionIndex)
      if (piece === undefined) continue
      const weak = symbol.bind === STB_WEAK
      const known = globals.get(symbol.name)
      if (known !== undefined && !known.weak && !weak) {
        throw new LinkError(object.file, `symbol ${symbol.name} is defined here and in ${known.file}`)
      }
      if (known === undefined || (known.weak && !weak)) {
        globals.set(symbol.name, { address: addressOf(piece) + symbol.value, weak, file: object.file, inText: piece.region === "text" })
      }
    }
  }

  const resolveTarget = (object: ElfObject, symbol: ElfSymbol): { address: number; inText: boolean } | undefined => {
    if (symbol.sectionIndex === SHN_ABS) return { address: symbol.value, inText: false }
    if (symbol.sectionIndex !== SHN_UNDEF && symbol.bind === STB_LOCAL) {
      const piece = placed.get(object)?.get(symbol.sectionIndex)
      if (piece === undefined) throw new LinkError(object.file, `symbol ${symbol.name || `#${symbol.index}`} is in a section that is not loaded`)
      return { address: addressOf(piece) + symbol.value, inText: piece.region === "text" }
    }
    return globals.get(symbol.name)
  }
  const resolve = (object: ElfObject, symbol: ElfSymbol): number | undefined => resolveTarget(object, symbol)?.address

  const images: Record<Region, Uint8Array> = { text: new Uint8Array(regionSize.text), rodata: new Uint8Array(regionSize.rodata) }
  const syscallSites: SyscallSite[] = []
  for (const piece of pieces) {
    const image = images[piece.region]
    image.set(piece.object.sectionBytes(piece.section), piece.regionOffset)
    const view = new DataView(image.buffer)
    for (const rel of piece.object.relocations.get(piece.section.index) ?? []) {
      const file = piece.object.file
      const symbol = piece.object.symbols[rel.symbolIndex]
      const at = piece.regionOffset + rel.offset
      const where = `${piece.section.name}+0x${rel.offset.toString(16)}`
      const symbolName = symbol.name || `#${symbol.index}`
      switch (rel.type) {
        case R_BPF_NONE:
          break
        case R_BPF_64_64: {
          if (piece.region !== "text" || image[at] !== OP_LDDW || rel.offset + 2 * INSN_SIZE > piece.section.size) {
            throw new LinkError(file, `R_BPF_64_64 at ${where} does not patch a lddw instruction`)
          }
          const target = resolve(piece.object, symbol)
          if (target === undefined) throw new LinkError(file, `undefined symbol ${symbolName} loaded at ${where}`)
          const addend = BigInt(view.getUint32(at + 4, true)) | (BigInt(view.getUint32(at + 12, true)) << 32n)
          const address = MM_RODATA_START + BigInt(target) + addend
          view.setUint32(at + 4, Number(address & 0xffff_ffffn), true)
          view.setUint32(at + 12, Number(address >> 32n), true)
          break
        }
        case R_BPF_64_ABS64: {
          if (piece.region !== "rodata") throw new LinkError(file, `R_BPF_64_ABS64 at ${where} is not in read-only data`)
          const target = resolve(piece.object, symbol)
          if (target === undefined) throw new LinkError(file, `undefined symbol ${symbolName} referenced at ${where}`)
          view.setBigUint64(at, MM_RODATA_START + BigInt(target) + view.getBigUint64(at, true), true)
          break
        }
        case R_BPF_64_32: {
          if (piece.region !== "text" || image[at] !== OP_CALL) throw new LinkError(file, `R_BPF_64_32 at ${where} does not patch a call instruction`)
          if (view.getInt32(at + 4, true) !== -1) throw new LinkError(file, `call at ${where} has an addend, which is not supported (do not use -ffunction-sections)`)
          const target = resolveTarget(piece.object, symbol)
          if (target !== undefined) {
            if (!target.inText) throw new LinkError(file, `call at ${where} targets ${symbolName}, which is not code`)
            const callSite = regionBase.text + at
            view.setInt32(at + 4, (target.address - (callSite + INSN_SIZE)) / INSN_SIZE, true)
          } else if (KNOWN_SYSCALLS.has(symbol.name)) {
            syscallSites.push({ offset: regionBase.text + at, name: symbol.name })
          } else {
            throw new LinkError(file, `undefined symbol ${symbolName} called at ${where}: it is neither defined in the objects nor a known syscall`)
          }
          break
        }
        case R_BPF_64_ABS32:
        case R_BPF_64_NODYLD32:
          throw new LinkError(file, `32-bit absolute relocation at ${where} is not supported in loaded sections`)
        default:
          throw new LinkError(file, `unknown relocation type ${rel.type} at ${where}`)
      }
    }
  }

  const entry = globals.get(ENTRYPOINT)
  if (entry === undefined || !entry.inText) throw new LinkError(inputs.map((i) => i.name).join(", "), `no global function named ${ENTRYPOINT}`)
  return writeSharedObject({
    layout,
    text: images.text,
    rodata: images.rodata,
    entryOffset: entry.address - layout.textOffset,
    syscallSites
  })
}

export { LinkError }
