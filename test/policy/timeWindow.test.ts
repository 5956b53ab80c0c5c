import { describe, expect, it } from "vitest"
import { decisionOf } from "./fixtures.js"

const at = (time: string) => ({ timestamp: new Date(`2025-03-10T${time}Z`) })

describe("time_window", () => {
  const wrap = { type: "time_window", startHourUtc: 22, endHourUtc: 6 }
  it.each([
    { time: "21:59:59", expected: "deny" },
    { time: "22:00:00", expected: "allow" },
    { time: "23:59:59", expected: "allow" },
    { time: "00:00:00", expected: "allow" },
    { time: "05:59:59", expected: "allow" },
    { time: "06:00:00", expected: "allow" },
    { time: "06:59:59", expected: "allow" }, // the end hour is inclusive as a whole hour
    { time: "07:00:00", expected: "deny" },
    { time: "12:00:00", expected: "deny" }
  ])("wrap-around 22-6 at $time -> $expected", ({ time, expected }) => {
    expect(decisionOf([wrap], at(time))).toBe(expected)
  })

  const day = { type: "time_window", startHourUtc: 9, endHourUtc: 17 }
  it.each([
    { time: "08:59:59", expected: "deny" },
    { time: "09:00:00", expected: "allow" },
    { time: "17:59:59", expected: "allow" },
    { time: "18:00:00", expected: "deny" }
  ])("plain 9-17 at $time -> $expected", ({ time, expected }) => {
    expect(decisionOf([day], at(time))).toBe(expected)
  })

  it.each([
    { time: "04:59:59", expected: "deny" },
    { time: "05:00:00", expected: "allow" },
    { time: "05:59:59", expected: "allow" },
    { time: "06:00:00", expected: "deny" }
  ])("single hour 5-5 at $time -> $expected", ({ time, expected }) => {
    expect(decisionOf([{ type: "time_window", startHourUtc: 5, endHourUtc: 5 }], at(time))).toBe(expected)
  })

  it("uses the evaluator's clock when the request has no timestamp", () => {
    const rule = { type: "time_window", startHourUtc: 22, endHourUtc: 6 }
    expect(decisionOf([rule], { timestamp: undefined }, { now: new Date("2025-03-10T23:00:00Z") })).toBe("allow")
    expect(decisionOf([rule], { timestamp: undefined }, { now: new Date("2025-03-10T12:00:00Z") })).toBe("deny")
  })
})
