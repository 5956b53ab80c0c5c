// Writes the SBPFv0 shared object the Solana loaders accept:
// ET_DYN, EM_BPF, e_flags 0, every section's address equal to its file offset,
// .text then .rodata (read-only, mapped at 0x1_0000_0000 + offset), and the dynamic tables
// (.dynsym, .dynstr, .rel.dyn, .dynamic) that carry one R_BPF_64_32 per syscall call site.
import { ByteWriter, StringTable } from "./byteWriter.js"
import {
  DF_TEXTREL, DT_FLAGS, DT_NULL, DT_REL, DT_RELENT, DT_RELSZ, DT_STRSZ, DT_STRTAB, DT_SYMENT, DT_SYMTAB, DYN_SIZE,
  ELF_HEADER_SIZE, EM_BPF, ET_DYN, PF_R, PF_W, PF_X, PROGRAM_HEADER_SIZE, PT_DYNAMIC, PT_LOAD, R_BPF_64_32, REL_SIZE,
  SECTION_HEADER_SIZE, SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHN_UNDEF, SHT_DYNAMIC, SHT_DYNSYM, SHT_PROGBITS, SHT_REL,
  SHT_STRTAB, STB_GLOBAL, STT_FUNC, STT_NOTYPE, SYMBOL_SIZE
} from "./elfConstants.js"

export interface SharedObjectLayout {
  readonly textOffset: number
  readonly rodataOffset: number
  readonly programHeaderCount: number
}

export interface SyscallSite {
  /** File offset (= address) of the `call -1` instruction. */
  readonly offset: number
  readonly name: string
}

export interface SharedObjectContents {
  readonly layout: SharedObjectLayout
  readonly text: Uint8Array
  readonly rodata: Uint8Array
  readonly entryOffset: number
  readonly syscallSites: ReadonlyArray<SyscallSite>
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8

/** Where .text and .rodata go; known before relocation so lddw targets can be computed. */
export const planLayout = (textSize: number, hasRodata: boolean): SharedObjectLayout => {
  const programHeaderCount = hasRodata ? 5 : 4
  const textOffset = align8(ELF_HEADER_SIZE + programHeaderCount * PROGRAM_HEADER_SIZE)
  return { textOffset, rodataOffset: align8(textOffset + textSize), programHeaderCount }
}

interface SectionHeader {
  name: string
  type: number
  flags: bigint
  offset: number
  size: number
  link: number
  info: number
  align: number
  entsize: number
}

interface ProgramHeader {
  type: number
  flags: number
  offset: number
  size: number
}

export const writeSharedObject = (contents: SharedObjectContents): Uint8Array => {
  const { layout, text, rodata, syscallSites } = contents
  const out = new ByteWriter()
  out.reserve(ELF_HEADER_SIZE + layout.programHeaderCount * PROGRAM_HEADER_SIZE)
  out.align(8)
  if (out.length !== layout.textOffset) throw new Error("internal: text offset differs from the planned layout")
  out.append(text)
  const sections: SectionHeader[] = [
    { name: ".text", type: SHT_PROGBITS, flags: SHF_ALLOC | SHF_EXECINSTR, offset: layout.textOffset, size: text.length, link: 0, info: 0, align: 8, entsize: 0 }
  ]
  const loads: ProgramHeader[] = [{ type: PT_LOAD, flags: PF_R | PF_X, offset: layout.textOffset, size: text.length }]
  if (rodata.length > 0) {
    // An empty .rodata gets no section at all: a zero-size ro section header would be refused.
    out.align(8)
    if (out.length !== layout.rodataOffset) throw new Error("internal: rodata offset differs from the planned layout")
    out.append(rodata)
    sections.push({ name: ".rodata", type: SHT_PROGBITS, flags: SHF_ALLOC, offset: layout.rodataOffset, size: rodata.length, link: 0, info: 0, align: 8, entsize: 0 })
    loads.push({ type: PT_LOAD, flags: PF_R, offset: layout.rodataOffset, size: rodata.length })
  } else if (layout.programHeaderCount !== 4) {
    throw new Error("internal: layout planned a .rodata segment but rodata is empty")
  }

  // Dynamic symbols: the entry point, then one undefined symbol per distinct syscall, in first-use order.
  const dynstr = new StringTable()
  const syscallNames = [...new Set(syscallSites.map((site) => site.name))]
  const textIndex = 1
  const dynsymBytes = new ByteWriter()
  dynsymBytes.reserve(SYMBOL_SIZE) // the null symbol
  const putSymbol = (name: string, type: number, sectionIndex: number, value: number): void => {
    const at = dynsymBytes.reserve(SYMBOL_SIZE)
    dynsymBytes.u32(at, dynstr.add(name))
    dynsymBytes.u8(at + 4, (STB_GLOBAL << 4) | type)
    dynsymBytes.u16(at + 6, sectionIndex)
    dynsymBytes.u64(at + 8, value)
  }
  putSymbol("entrypoint", STT_FUNC, textIndex, layout.textOffset + contents.entryOffset)
  const symbolIndex = new Map(syscallNames.map((name, i) => [name, i + 2]))
  for (const name of syscallNames) putSymbol(name, STT_NOTYPE, SHN_UNDEF, 0)

  const dynamicTablesStart = out.align(8)
  const dynsymIndex = sections.length + 1
  const dynsymOffset = out.append(dynsymBytes.bytes())
  const dynstrBytes = dynstr.bytes()
  const dynstrOffset = out.append(dynstrBytes)
  sections.push({ name: ".dynsym", type: SHT_DYNSYM, flags: SHF_ALLOC, offset: dynsymOffset, size: dynsymBytes.length, link: dynsymIndex + 1, info: 1, align: 8, entsize: SYMBOL_SIZE })
  sections.push({ name: ".dynstr", type: SHT_STRTAB, flags: SHF_ALLOC, offset: dynstrOffset, size: dynstrBytes.length, link: 0, info: 0, align: 1, entsize: 0 })

  let relOffset = 0
  const relSize = syscallSites.length * REL_SIZE
  if (syscallSites.length > 0) {
    relOffset = out.align(8)
    const rel = out.reserve(relSize)
    syscallSites.forEach((site, i) => {
      out.u64(rel + i * REL_SIZE, site.offset)
      out.u64(rel + i * REL_SIZE + 8, (BigInt(symbolIndex.get(site.name) ?? 0) << 32n) | BigInt(R_BPF_64_32))
    })
    sections.push({ name: ".rel.dyn", type: SHT_REL, flags: SHF_ALLOC, offset: relOffset, size: relSize, link: dynsymIndex, info: 0, align: 8, entsize: REL_SIZE })
  }
  loads.push({ type: PT_LOAD, flags: PF_R, offset: dynamicTablesStart, size: out.length - dynamicTablesStart })

  const dynamicEntries: Array<[bigint, number]> = [
    ...(syscallSites.length > 0
      ? ([[DT_FLAGS, Number(DF_TEXTREL)], [DT_REL, relOffset], [DT_RELSZ, relSize], [DT_RELENT, REL_SIZE]] as Array<[bigint, number]>)
      : []),
    [DT_SYMTAB, dynsymOffset],
    [DT_SYMENT, SYMBOL_SIZE],
    [DT_STRTAB, dynstrOffset],
    [DT_STRSZ, dynstrBytes.length],
    [DT_NULL, 0]
  ]
  const dynamicOffset = out.align(8)
  const dynamicSize = dynamicEntries.length * DYN_SIZE
  out.reserve(dynamicSize)
  dynamicEntries.forEach(([tag, value], i) => {
    out.u64(dynamicOffset + i * DYN_SIZE, tag)
    out.u64(dynamicOffset + i * DYN_SIZE + 8, value)
  })
  sections.push({ name: ".dynamic", type: SHT_DYNAMIC, flags: SHF_ALLOC | SHF_WRITE, offset: dynamicOffset, size: dynamicSize, link: dynsymIndex + 1, info: 0, align: 8, entsize: DYN_SIZE })
  loads.push({ type: PT_LOAD, flags: PF_R | PF_W, offset: dynamicOffset, size: dynamicSize })
  const programHeaders: ProgramHeader[] = [...loads, { type: PT_DYNAMIC, flags: PF_R | PF_W, offset: dynamicOffset, size: dynamicSize }]
  if (programHeaders.length !== layout.programHeaderCount) throw new Error("internal: program header count differs from the planned layout")

  const shstrtab = new StringTable()
  const allSections = [...sections, { name: ".shstrtab", type: SHT_STRTAB, flags: 0n, offset: 0, size: 0, link: 0, info: 0, align: 1, entsize: 0 }]
  for (const section of allSections) shstrtab.add(section.name)
  const shstrtabBytes = shstrtab.bytes()
  const shstrtabSection = allSections[allSections.length - 1]
  shstrtabSection.offset = out.append(shstrtabBytes)
  shstrtabSection.size = shstrtabBytes.length

  const sectionHeaderOffset = out.align(8)
  out.reserve(SECTION_HEADER_SIZE) // the null section
  for (const section of allSections) {
    const at = out.reserve(SECTION_HEADER_SIZE)
    out.u32(at, shstrtab.add(section.name))
    out.u32(at + 4, section.type)
    out.u64(at + 8, section.flags)
    // Address equals file offset, except for sections that are not loaded.
    out.u64(at + 16, (section.flags & SHF_ALLOC) !== 0n ? section.offset : 0)
    out.u64(at + 24, section.offset)
    out.u64(at + 32, section.size)
    out.u32(at + 40, section.link)
    out.u32(at + 44, section.info)
    out.u64(at + 48, section.align)
    out.u64(at + 56, section.entsize)
  }

  programHeaders.forEach((ph, i) => {
    const at = ELF_HEADER_SIZE + i * PROGRAM_HEADER_SIZE
    out.u32(at, ph.type)
    out.u32(at + 4, ph.flags)
    out.u64(at + 8, ph.offset)
    out.u64(at + 16, ph.offset)
    out.u64(at + 24, ph.offset)
    out.u64(at + 32, ph.size)
    out.u64(at + 40, ph.size)
    out.u64(at + 48, 8)
  })

  writeElfHeader(out, {
    entry: layout.textOffset + contents.entryOffset,
    programHeaderCount: programHeaders.length,
    sectionHeaderOffset,
    sectionCount: allSections.length + 1,
    sectionNamesIndex: allSections.length
  })
  return out.bytes()
}

interface ElfHeaderFields {
  entry: number
  programHeaderCount: number
  sectionHeaderOffset: number
  sectionCount: number
  sectionNamesIndex: number
}

const writeElfHeader = (out: ByteWriter, h: ElfHeaderFields): void => {
  ;[0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0].forEach((b, i) => out.u8(i, b)) // ELFCLASS64, LSB, EV_CURRENT, SYSV ABI
  out.u16(16, ET_DYN)
  out.u16(18, EM_BPF)
  out.u32(20, 1)
  out.u64(24, h.entry)
  out.u64(32, ELF_HEADER_SIZE)
  out.u64(40, h.sectionHeaderOffset)
  out.u32(48, 0) // e_flags 0: SBPFv0
  out.u16(52, ELF_HEADER_SIZE)
  out.u16(54, PROGRAM_HEADER_SIZE)
  out.u16(56, h.programHeaderCount)
  out.u16(58, SECTION_HEADER_SIZE)
  out.u16(60, h.sectionCount)
  out.u16(62, h.sectionNamesIndex)
}
