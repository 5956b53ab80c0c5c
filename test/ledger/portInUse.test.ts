/**
 * A ledger whose PubSub port (RPC port + 1) is taken refuses to start with the listen error, and nothing
 * else: before, the WebSocket server re-emitted the error with no listener, an uncaught exception that
 * took a test file's ledger start down with it (CI saw a hook hang for 120 s).
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { startLedgerServer } from "../../src/ledger/server.js"
import { spawnLedger } from "../../src/ledger/spawn.js"
import { freePortPair } from "../support/freePort.js"

describe("a ledger start on a port pair half taken", () => {
  it("rejects with EADDRINUSE, raises no uncaught exception, and can start again once the port is free", async () => {
    const port = await freePortPair()
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(port + 1, "127.0.0.1", resolve))
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-ledger-port-"))
    const uncaught: Array<unknown> = []
    const onUncaught = (error: unknown) => void uncaught.push(error)
    process.on("uncaughtException", onUncaught)
    try {
      await expect(startLedgerServer({ port, dataDir })).rejects.toMatchObject({ code: "EADDRINUSE" })
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(uncaught).toEqual([])
      await new Promise<void>((resolve) => blocker.close(() => resolve()))
      // Both ports were released by the failed start.
      const ledger = await startLedgerServer({ port, dataDir })
      await ledger.close()
    } finally {
      process.off("uncaughtException", onUncaught)
      blocker.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("as a child process, says why it did not start: the parent's error names the port taken", async () => {
    const port = await freePortPair()
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(port + 1, "127.0.0.1", resolve))
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-ledger-port-"))
    try {
      await expect(spawnLedger({ port, dataDir })).rejects.toThrow(`exited with code 1 before it was ready: listen EADDRINUSE: address already in use 127.0.0.1:${port + 1}`)
    } finally {
      blocker.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
