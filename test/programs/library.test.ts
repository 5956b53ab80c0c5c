// programs/include/*.c is linked like a static library: a program gets only the members it calls.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { withNeededMembers } from "../../programs/linker/library.js"
import type { ObjectInput } from "../../programs/linker/link.js"

const fixture = (path: string): ObjectInput => ({ name: path, bytes: readFileSync(new URL(`fixtures/${path}`, import.meta.url)) })
const hello = fixture("hello/hello.o") // defines entrypoint, calls sum_bytes
const helper = fixture("hello/helper.o") // defines sum_bytes
const noRodata = fixture("norodata/entry.o") // defines entrypoint only
const writable = fixture("writable/data.o") // defines entrypoint and counter

const names = (inputs: ReadonlyArray<ObjectInput>): string[] => inputs.map((i) => i.name)

describe("shared helper library", () => {
  it("links a member that defines a function the program calls, and none that it does not need", () => {
    expect(names(withNeededMembers([hello], [writable, helper, noRodata]))).toEqual(["hello/hello.o", "hello/helper.o"])
  })

  it("links nothing when the program calls no member", () => {
    expect(names(withNeededMembers([noRodata], [helper, writable]))).toEqual(["norodata/entry.o"])
  })

  it("leaves an undefined call for the linker to refuse when no member defines it", () => {
    expect(names(withNeededMembers([hello], [noRodata]))).toEqual(["hello/hello.o"])
  })
})
