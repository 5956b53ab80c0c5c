/**
 * `tx watch`'s merge of a transaction's history with its stage stream, given the two as the service serves them
 * (the stream opened before the history is read, so transitions made in between come in both). Against the real
 * service the overlap depends on timing (cli.test.ts runs the command end to end); here it is laid out.
 */
import { describe, expect, it } from "vitest"
import type { CustodyClient, StageEvent, Transaction } from "../../sdk/src/index.js"
import { watchTransaction } from "../../src/cli/watch.js"

type Step = Pick<StageEvent, "status" | "stage" | "at" | "message">

const TX_ID = "0b5cf5b8-7f0e-4d0c-9a43-0cbbd3b9a0a1"
const step = (second: number, status: StageEvent["status"], stage: string, message?: string): Step =>
  ({ at: `2026-11-30T07:00:${String(second).padStart(2, "0")}.000Z`, status, stage, ...(message === undefined ? {} : { message }) })

/** The record `transactions.get` answers: its status the last step's. */
const record = (history: ReadonlyArray<Step>) => ({
  id: TX_ID, type: "transfer_sol", protocol: "system-program", status: history.at(-1)!.status,
  signature: history.at(-1)!.status === "confirmed" ? "5ig" : null, errorCode: null, failedAt: null, error: null, history
}) as unknown as Transaction

/** A client whose first read answers `read`, whose stream delivers `streamed`, and whose later reads answer the whole. */
const clientOf = (read: ReadonlyArray<Step>, streamed: ReadonlyArray<Step>) => {
  let reads = 0
  return {
    stream: async () => ({
      close: () => {},
      async *[Symbol.asyncIterator]() {
        for (const event of streamed) yield { type: "stage", txId: TX_ID, ...event } as StageEvent
      }
    }),
    transactions: { get: async () => record(reads++ === 0 ? read : [...read, ...streamed.filter((s) => !read.includes(s))]) }
  } as unknown as CustodyClient
}

const watched = async (read: ReadonlyArray<Step>, streamed: ReadonlyArray<Step>) => {
  const lines: Array<string> = []
  await watchTransaction(clientOf(read, streamed), TX_ID, (line) => lines.push(line))
  return lines
}

const statusesOf = (lines: ReadonlyArray<string>) => lines.filter((line) => line.startsWith("  ")).map((line) => line.trim().split(/\s+/)[1])

describe("tx watch", () => {
  const pending = step(1, "pending", "validation", "accepted")
  const simulating = step(2, "simulating", "build", "transaction to sign recorded")
  const policyEval = step(3, "policy_eval", "policy", "simulation ok")
  const signing = step(4, "signing", "sign", "policy allowed")
  const submitting = step(5, "submitting", "send", "signed")
  const confirmed = step(6, "confirmed", "completed", "confirmed")

  it("prints each transition once when several made before the read also came on the stream", async () => {
    const lines = await watched([pending, simulating, policyEval, signing, submitting], [simulating, policyEval, signing, submitting, confirmed])
    expect(statusesOf(lines)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"])
    expect(lines.at(-1)).toBe("confirmed: signature 5ig")
  })

  it("prints a step again when the transaction really went through it again (a later time)", async () => {
    const rebuilt = step(5, "signing", "sign", "policy allowed")
    const lines = await watched([pending, simulating], [simulating, policyEval, signing, rebuilt, step(7, "submitting", "send", "signed"), step(8, "confirmed", "completed")])
    expect(statusesOf(lines)).toEqual(["pending", "simulating", "policy_eval", "signing", "signing", "submitting", "confirmed"])
  })

  it("prints the history alone when the transaction had settled before the read", async () => {
    const lines = await watched([pending, simulating, policyEval, signing, submitting, confirmed], [confirmed])
    expect(statusesOf(lines)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"])
  })
})
