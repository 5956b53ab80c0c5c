/**
 * Stopping the local ledger ends its PubSub sockets with a normal closure (1000), so a subscribed client
 * (web3.js's rpc-websockets) does not keep reconnecting, once a second, to a ledger that is gone.
 */
import { describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { startTestLedger } from "../support/ledger.js"

describe("stopping the ledger", () => {
  it("closes each open PubSub socket with code 1000 and a reason", async () => {
    const ledger = await startTestLedger()
    const socket = new WebSocket(ledger.wsUrl)
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve())
      socket.once("error", reject)
    })
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") }))
    )
    await ledger.close()
    expect(await closed).toEqual({ code: 1000, reason: "the ledger stopped" })
  })
})
