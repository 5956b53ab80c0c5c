// Picks the members of a library of objects (programs/include/*.c) that a program needs, as a static
// library (ar) does: a member is linked only when it defines a global symbol that the objects linked so far
// use but do not define, repeated until nothing more is needed. So a program carries no helper it never calls.
import { readElfObject } from "./elf.js"
import { SHN_UNDEF, STB_LOCAL } from "./elfConstants.js"
import type { ObjectInput } from "./link.js"

interface Symbols {
  readonly defines: ReadonlyArray<string>
  readonly uses: ReadonlyArray<string>
}

const symbolsOf = (input: ObjectInput): Symbols => {
  const globals = readElfObject(input.name, input.bytes).symbols.filter((s) => s.bind !== STB_LOCAL && s.name !== "")
  return {
    defines: globals.filter((s) => s.sectionIndex !== SHN_UNDEF).map((s) => s.name),
    uses: globals.filter((s) => s.sectionIndex === SHN_UNDEF).map((s) => s.name)
  }
}

/** `objects`, then the library members they need (directly or through other members), in name order. */
export const withNeededMembers = (objects: ReadonlyArray<ObjectInput>, library: ReadonlyArray<ObjectInput>): ObjectInput[] => {
  const symbols = new Map([...objects, ...library].map((input) => [input, symbolsOf(input)]))
  const linked = [...objects]
  let added = true
  while (added) {
    added = false
    const defined = new Set(linked.flatMap((input) => symbols.get(input)?.defines ?? []))
    const missing = new Set(linked.flatMap((input) => symbols.get(input)?.uses ?? []).filter((name) => !defined.has(name)))
    for (const member of library) {
      if (!linked.includes(member) && (symbols.get(member)?.defines ?? []).some((name) => missing.has(name))) {
        linked.push(member)
        added = true
      }
    }
  }
  const members = linked.slice(objects.length).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return [...objects, ...members]
}
