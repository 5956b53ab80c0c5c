// The service's start waits for its ledger child's first getHealth: on a loaded machine that answer can take
// longer than one short try (a CI run failed a start that way), so the wait asks again until its deadline.
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { waitUntilHealthy } from "../../src/ledger/spawn.js"

const servers: Array<http.Server> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))))
})

/** A JSON-RPC endpoint whose first `slowAnswers` getHealth calls answer after `delayMs`, then at once. */
const ledgerLike = async (options: { slowAnswers: number; delayMs: number; result?: string }) => {
  let calls = 0
  const server = http.createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      calls += 1
      const answer = () => response.end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: options.result ?? "ok" }))
      if (calls <= options.slowAnswers) setTimeout(answer, options.delayMs)
      else answer()
    })
  })
  servers.push(server)
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls }
}

describe("waiting for the ledger's first getHealth", () => {
  it("waits out a first answer slower than a second, as on a loaded machine", async () => {
    const ledger = await ledgerLike({ slowAnswers: 1, delayMs: 2_500 })
    await waitUntilHealthy(ledger.url, 10_000)
    // the first try gave up after its 2 s; the second was answered
    expect(ledger.calls()).toBe(2)
  })

  it("asks again while nothing listens yet, and succeeds once it does", async () => {
    const ledger = await ledgerLike({ slowAnswers: 0, delayMs: 0 })
    const port = new URL(ledger.url).port
    await new Promise((done) => servers.pop()!.close(done))
    const waiting = waitUntilHealthy(`http://127.0.0.1:${port}`, 10_000)
    await new Promise((later) => setTimeout(later, 500))
    const server = http.createServer((request, response) => {
      request.resume()
      request.on("end", () => response.end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: "ok" })))
    })
    servers.push(server)
    await new Promise<void>((listening) => server.listen(Number(port), "127.0.0.1", listening))
    await expect(waiting).resolves.toBeUndefined()
  })

  it("fails at its deadline with what the endpoint answered", async () => {
    const ledger = await ledgerLike({ slowAnswers: 0, delayMs: 0, result: "behind" })
    const started = Date.now()
    await expect(waitUntilHealthy(ledger.url, 1_000)).rejects.toThrow(/does not answer getHealth within 1000 ms \(it answered .*behind/)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
    expect(ledger.calls()).toBeGreaterThan(1)
  })
})
