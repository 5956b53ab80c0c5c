// Reader for ELF64 little-endian BPF relocatable objects (clang -target bpfel -c).
// Every structural problem is refused with a LinkError naming the file, never read past.
import {
  ELF_HEADER_SIZE, ELF_MAGIC, ELFCLASS64, ELFDATA2LSB, EM_BPF, ET_REL, REL_SIZE, SECTION_HEADER_SIZE,
  SHN_ABS, SHN_COMMON, SHN_UNDEF, SHT_NOBITS, SHT_NULL, SHT_REL, SHT_RELA, SHT_STRTAB, SHT_SYMTAB, SYMBOL_SIZE
} from "./elfConstants.js"
import { LinkError } from "./linkError.js"

export interface ElfSection {
  readonly index: number
  readonly name: string
  readonly type: number
  readonly flags: bigint
  readonly offset: number
  readonly size: number
  readonly link: number
  readonly info: number
  readonly align: number
  readonly entsize: number
}

export interface ElfSymbol {
  readonly index: number
  readonly name: string
  readonly value: number
  readonly size: number
  readonly bind: number
  readonly type: number
  readonly sectionIndex: number
}

export interface ElfRelocation {
  readonly offset: number
  readonly type: number
  readonly symbolIndex: number
}

export interface ElfObject {
  readonly file: string
  readonly bytes: Uint8Array
  readonly sections: ReadonlyArray<ElfSection>
  readonly symbols: ReadonlyArray<ElfSymbol>
  /** Relocations keyed by the index of the section they patch. */
  readonly relocations: ReadonlyMap<number, ReadonlyArray<ElfRelocation>>
  sectionBytes(section: ElfSection): Uint8Array
}

const toSafeNumber = (file: string, value: bigint, what: string): number => {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new LinkError(file, `${what} is too large (${value})`)
  return Number(value)
}

interface StringTable {
  readonly index: number
  readonly offset: number
  readonly size: number
}

const readCString = (file: string, bytes: Uint8Array, table: StringTable, offset: number): string => {
  if (offset >= table.size) throw new LinkError(file, `string offset ${offset} is outside string table (section ${table.index})`)
  const start = table.offset + offset
  const end = bytes.indexOf(0, start)
  if (end < 0 || end >= table.offset + table.size) throw new LinkError(file, `unterminated string in string table at offset ${offset}`)
  return new TextDecoder().decode(bytes.subarray(start, end))
}

export const readElfObject = (file: string, input: Uint8Array): ElfObject => {
  const bytes = new Uint8Array(input)
  if (bytes.length < ELF_HEADER_SIZE) throw new LinkError(file, `not an ELF object: ${bytes.length} bytes is shorter than an ELF header`)
  if (!ELF_MAGIC.every((b, i) => bytes[i] === b)) throw new LinkError(file, "not an ELF object: bad magic bytes")
  if (bytes[4] !== ELFCLASS64) throw new LinkError(file, "not a 64-bit ELF object (EI_CLASS is not ELFCLASS64)")
  if (bytes[5] !== ELFDATA2LSB) throw new LinkError(file, "not a little-endian ELF object (compile with -target bpfel)")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const eType = view.getUint16(16, true)
  const eMachine = view.getUint16(18, true)
  if (eType !== ET_REL) throw new LinkError(file, `not a relocatable object (e_type ${eType}, expected ET_REL): link the output of clang -c`)
  if (eMachine !== EM_BPF) throw new LinkError(file, `not a BPF object (e_machine ${eMachine}, expected EM_BPF ${EM_BPF})`)
  const shoff = toSafeNumber(file, view.getBigUint64(40, true), "section header offset")
  const shentsize = view.getUint16(58, true)
  const shnum = view.getUint16(60, true)
  const shstrndx = view.getUint16(62, true)
  if (shentsize !== SECTION_HEADER_SIZE) throw new LinkError(file, `section header size ${shentsize}, expected ${SECTION_HEADER_SIZE}`)
  if (shnum === 0) throw new LinkError(file, "object has no section headers")
  if (shoff + shnum * SECTION_HEADER_SIZE > bytes.length) throw new LinkError(file, "section header table extends past the end of the file (truncated object?)")
  if (shstrndx >= shnum) throw new LinkError(file, `section name table index ${shstrndx} is out of range`)

  const raw = Array.from({ length: shnum }, (_, index) => {
    const at = shoff + index * SECTION_HEADER_SIZE
    const type = view.getUint32(at + 4, true)
    const offset = toSafeNumber(file, view.getBigUint64(at + 24, true), `section ${index} offset`)
    const size = toSafeNumber(file, view.getBigUint64(at + 32, true), `section ${index} size`)
    if (type !== SHT_NOBITS && type !== SHT_NULL && offset + size > bytes.length) {
      throw new LinkError(file, `section ${index} (offset ${offset}, size ${size}) extends past the end of the file (truncated object?)`)
    }
    return {
      index,
      nameOffset: view.getUint32(at, true),
      type,
      flags: view.getBigUint64(at + 8, true),
      offset,
      size,
      link: view.getUint32(at + 40, true),
      info: view.getUint32(at + 44, true),
      align: toSafeNumber(file, view.getBigUint64(at + 48, true), `section ${index} alignment`),
      entsize: toSafeNumber(file, view.getBigUint64(at + 56, true), `section ${index} entry size`)
    }
  })
  const nameTable = raw[shstrndx]
  if (nameTable.type !== SHT_STRTAB) throw new LinkError(file, "section name table is not a string table")
  const sections: ElfSection[] = raw.map(({ nameOffset, ...s }) => ({
    ...s,
    name: s.type === SHT_NULL ? "" : readCString(file, bytes, nameTable, nameOffset)
  }))

  const symbols = readSymbols(file, bytes, view, sections)
  const relocations = readRelocations(file, view, sections, symbols.length)
  return {
    file,
    bytes,
    sections,
    symbols,
    relocations,
    sectionBytes: (section) => bytes.subarray(section.offset, section.offset + section.size)
  }
}

const readSymbols = (file: string, bytes: Uint8Array, view: DataView, sections: ReadonlyArray<ElfSection>): ElfSymbol[] => {
  const tables = sections.filter((s) => s.type === SHT_SYMTAB)
  if (tables.length === 0) throw new LinkError(file, "object has no symbol table")
  if (tables.length > 1) throw new LinkError(file, "object has more than one symbol table")
  const table = tables[0]
  if (table.entsize !== SYMBOL_SIZE || table.size % SYMBOL_SIZE !== 0) throw new LinkError(file, "symbol table entries are not 24 bytes")
  const strings = sections[table.link]
  if (strings === undefined || strings.type !== SHT_STRTAB) throw new LinkError(file, "symbol table does not link to a string table")
  return Array.from({ length: table.size / SYMBOL_SIZE }, (_, index) => {
    const at = table.offset + index * SYMBOL_SIZE
    const info = view.getUint8(at + 4)
    const sectionIndex = view.getUint16(at + 6, true)
    if (sectionIndex !== SHN_UNDEF && sectionIndex !== SHN_ABS && sectionIndex !== SHN_COMMON && sectionIndex >= sections.length) {
      throw new LinkError(file, `symbol ${index} refers to section ${sectionIndex}, which does not exist`)
    }
    return {
      index,
      name: readCString(file, bytes, strings, view.getUint32(at, true)),
      value: toSafeNumber(file, view.getBigUint64(at + 8, true), `symbol ${index} value`),
      size: toSafeNumber(file, view.getBigUint64(at + 16, true), `symbol ${index} size`),
      bind: info >> 4,
      type: info & 0xf,
      sectionIndex
    }
  })
}

const readRelocations = (
  file: string,
  view: DataView,
  sections: ReadonlyArray<ElfSection>,
  symbolCount: number
): Map<number, ElfRelocation[]> => {
  const byTarget = new Map<number, ElfRelocation[]>()
  for (const section of sections) {
    if (section.type === SHT_RELA) throw new LinkError(file, `RELA section ${section.name} is not supported (BPF objects use REL)`)
    if (section.type !== SHT_REL) continue
    if (section.entsize !== REL_SIZE || section.size % REL_SIZE !== 0) throw new LinkError(file, `relocation section ${section.name} entries are not 16 bytes`)
    const target = sections[section.info]
    if (target === undefined || section.info === 0) throw new LinkError(file, `relocation section ${section.name} patches section ${section.info}, which does not exist`)
    const entries: ElfRelocation[] = []
    for (let at = section.offset; at < section.offset + section.size; at += REL_SIZE) {
      const offset = toSafeNumber(file, view.getBigUint64(at, true), "relocation offset")
      const type = view.getUint32(at + 8, true)
      const symbolIndex = view.getUint32(at + 12, true)
      if (symbolIndex >= symbolCount) throw new LinkError(file, `relocation in ${section.name} refers to symbol ${symbolIndex}, which does not exist`)
      if (target.type !== SHT_NOBITS && offset + 8 > target.size) {
        throw new LinkError(file, `relocation at offset ${offset} is outside section ${target.name} (size ${target.size})`)
      }
      entries.push({ offset, type, symbolIndex })
    }
    byTarget.set(section.info, [...(byTarget.get(section.info) ?? []), ...entries])
  }
  return byTarget
}
