// ELF64 and BPF constants used by the reader and the writer (System V gABI, LLVM BPF backend).

export const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46] as const
export const ELFCLASS64 = 2
export const ELFDATA2LSB = 1
export const EV_CURRENT = 1
export const ET_REL = 1
export const ET_DYN = 3
export const EM_BPF = 247

export const ELF_HEADER_SIZE = 64
export const PROGRAM_HEADER_SIZE = 56
export const SECTION_HEADER_SIZE = 64
export const SYMBOL_SIZE = 24
export const REL_SIZE = 16
export const DYN_SIZE = 16

export const SHT_NULL = 0
export const SHT_PROGBITS = 1
export const SHT_SYMTAB = 2
export const SHT_STRTAB = 3
export const SHT_RELA = 4
export const SHT_DYNAMIC = 6
export const SHT_NOBITS = 8
export const SHT_REL = 9
export const SHT_DYNSYM = 11

export const SHF_WRITE = 0x1n
export const SHF_ALLOC = 0x2n
export const SHF_EXECINSTR = 0x4n

export const SHN_UNDEF = 0
export const SHN_ABS = 0xfff1
export const SHN_COMMON = 0xfff2

export const STB_LOCAL = 0
export const STB_GLOBAL = 1
export const STB_WEAK = 2
export const STT_NOTYPE = 0
export const STT_FUNC = 2
export const STT_SECTION = 3

export const PT_LOAD = 1
export const PT_DYNAMIC = 2
export const PF_X = 1
export const PF_W = 2
export const PF_R = 4

export const DT_NULL = 0n
export const DT_STRTAB = 5n
export const DT_SYMTAB = 6n
export const DT_STRSZ = 10n
export const DT_SYMENT = 11n
export const DT_REL = 17n
export const DT_RELSZ = 18n
export const DT_RELENT = 19n
export const DT_FLAGS = 30n
export const DF_TEXTREL = 4n

// BPF relocation types (llvm/BinaryFormat/ELFRelocs/BPF.def).
export const R_BPF_NONE = 0
export const R_BPF_64_64 = 1
export const R_BPF_64_ABS64 = 2
export const R_BPF_64_ABS32 = 3
export const R_BPF_64_NODYLD32 = 4
export const R_BPF_64_32 = 10

// BPF opcodes the linker patches.
export const INSN_SIZE = 8
export const OP_LDDW = 0x18
export const OP_CALL = 0x85

// Read-only data (and .text) is mapped by the SBPF VM at this base plus the file offset.
export const MM_RODATA_START = 0x1_0000_0000n
