/**
 * Ids of the growing tables (src/db/rowIds.ts): UUIDs of version 7, ordered by the millisecond they were
 * made, and otherwise random (no counter an id's neighbours could be read from).
 */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { newRowId } from "../../src/db/rowIds.js"

const millisecondOf = (id: string) => Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)
/** The 32 bits after the timestamp and version that a counting generator would step by one (RFC 9562 method 1 and 3). */
const sequenceOf = (id: string) => {
  const hex = id.replace(/-/g, "")
  return Number.parseInt(hex.slice(13, 16) + hex.slice(17, 22), 16)
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("row ids", () => {
  it("are version 7 UUIDs stamped with the millisecond they were made", () => {
    const before = Date.now()
    const ids = Array.from({ length: 1_000 }, newRowId)
    const after = Date.now()
    for (const id of ids) {
      expect(Schema.is(Schema.UUID)(id)).toBe(true)
      expect(id[14]).toBe("7")
      expect(["8", "9", "a", "b"]).toContain(id[19])
      expect(millisecondOf(id)).toBeGreaterThanOrEqual(before)
      expect(millisecondOf(id)).toBeLessThanOrEqual(after)
    }
  })

  it("sort in the order of the milliseconds they were made in", async () => {
    const ids: Array<string> = []
    for (let i = 0; i < 20; i++) {
      ids.push(newRowId())
      await sleep(2)
    }
    expect([...ids].sort()).toEqual(ids)
  })

  it("are all distinct, and those of one millisecond are not counted up from each other", () => {
    const ids = Array.from({ length: 20_000 }, newRowId)
    expect(new Set(ids).size).toBe(ids.length)
    let neighbours = 0
    let counted = 0
    for (let i = 1; i < ids.length; i++) {
      if (millisecondOf(ids[i]!) !== millisecondOf(ids[i - 1]!)) continue
      neighbours++
      if (sequenceOf(ids[i]!) === sequenceOf(ids[i - 1]!) + 1) counted++
    }
    // 20,000 ids take a few milliseconds: most are made in the same millisecond as the one before.
    expect(neighbours).toBeGreaterThan(1_000)
    expect(counted).toBe(0)
  })
})
