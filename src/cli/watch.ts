/**
 * `tx watch <id>`: the transaction's stages as they happen, one line each (time, status, stage, message), from
 * its history so far and then the stage stream, until it is confirmed or failed. The stream is opened first, so
 * a transition between the subscription and the read is not missed; it then comes both in the history and on
 * the stream, and is printed once (the service gives a transition's event the time of its history entry).
 */
import { type CustodyClient, isSettled, type StageEvent, type Transaction } from "../../sdk/src/index.js"

interface Step {
  readonly at: string
  readonly status: string
  readonly stage: string
  readonly message?: string | undefined
}

const stepKey = (step: Step) => `${step.at}|${step.status}|${step.stage}`

const clock = (at: string) => (Number.isNaN(Date.parse(at)) ? at : new Date(at).toISOString().slice(11, 23))

export const stepLine = (step: Step) =>
  `  ${clock(step.at)}  ${step.status.padEnd(13)} ${step.stage.padEnd(10)} ${step.message ?? ""}`.trimEnd()

const outcomeLine = (tx: Pick<Transaction, "status" | "signature" | "errorCode" | "failedAt" | "error">) =>
  tx.status === "confirmed"
    ? `confirmed: signature ${tx.signature ?? "(none: read-only)"}`
    : tx.status === "failed"
      ? `failed: ${tx.errorCode ?? "ERROR"} at ${tx.failedAt ?? "?"}: ${tx.error ?? ""}`
      : `${tx.status}: waiting`

/** Prints the stages of `txId` until it is confirmed or failed (at the approval gate it waits for a decision); returns its last record. */
export const watchTransaction = async (custody: CustodyClient, txId: string, print: (line: string) => void): Promise<Transaction> => {
  const stream = await custody.stream({ txId })
  try {
    const tx = await custody.transactions.get(txId)
    print(`tx ${tx.id}  ${tx.type} ${tx.protocol}`)
    // Every transition made after the subscription comes on the stream, the ones made before the read also in
    // the history (several, on a busy service): those are known by their time, status and stage.
    const inHistory = new Set(tx.history.map(stepKey))
    for (const entry of tx.history) print(stepLine(entry))
    if (isSettled(tx)) {
      print(outcomeLine(tx))
      return tx
    }
    for await (const event of stream as AsyncIterable<StageEvent>) {
      if (!inHistory.has(stepKey(event))) print(stepLine(event))
      if (event.status === "confirmed" || event.status === "failed") break
    }
    const settled = await custody.transactions.get(txId)
    print(outcomeLine(settled))
    return settled
  } finally {
    stream.close()
  }
}
