/**
 * Free TCP ports on 127.0.0.1 for the processes a test starts: a port for a service, a pair for a ledger child.
 *
 * Picked below the OS's ephemeral range where there is room (Linux): the OS takes a connection's local port, and
 * a bind to port 0, from that range only, so a port picked below it cannot be taken by another process's
 * connection between the pick and the child that binds it seconds later. In the range, CI saw EADDRINUSE both
 * for a ledger child's PubSub port (RPC + 1, an odd port, which connections prefer) and for a service's gateway
 * port (asked of the OS with port 0, then bound by a service that took 5 s to start under tsx). Each vitest fork
 * picks from its own share of the range (VITEST_POOL_ID), and a process never hands out a port twice, so two
 * files starting services at once cannot pick the same one either. Elsewhere, or with a range starting too low
 * to leave room, a port is asked of the OS.
 */
import { readFileSync } from "node:fs"
import * as net from "node:net"

const tryListen = (port: number) =>
  new Promise<number | null>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(null))
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address.port : null
      server.close(() => resolve(bound))
    })
  })

/** [lowest, highest] below the ephemeral range (the highest leaves room for RPC + 2, a ledger's local relay). */
const belowEphemeralRange = (): readonly [number, number] | undefined => {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(low) && low >= 12_000 ? [10_000, low - 3] : undefined
  } catch {
    return undefined
  }
}
const quietRange = belowEphemeralRange()

/** The range is cut into this many shares, in blocks of four ports: fork k picks from share k mod SHARES. */
const SHARES = 8
const poolId = Number.parseInt(process.env.VITEST_POOL_ID ?? "", 10)
const share = Number.isInteger(poolId) ? poolId % SHARES : Math.floor(Math.random() * SHARES)
const handedOut = new Set<number>()

/** The first port of a block of four in this process's share: room for a ledger's RPC, PubSub and relay ports. */
const pickQuiet = ([low, high]: readonly [number, number]) => {
  const blocks = Math.floor((high - low) / (4 * SHARES))
  return low + 4 * (SHARES * Math.floor(Math.random() * blocks) + share)
}

/** A port nothing listens on (and, with `pair`, the port after it too), handed out once by this process. */
const pickFree = async (pair: boolean): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = quietRange === undefined ? await tryListen(0) : pickQuiet(quietRange)
    if (port === null || port >= 65535 || handedOut.has(port)) continue
    if ((await tryListen(port)) === null || (pair && (await tryListen(port + 1)) === null)) continue
    handedOut.add(port)
    return port
  }
  throw new Error(pair ? "no free port pair" : "no free port")
}

export const freePort = (): Promise<number> => pickFree(false)

/** A port p with p + 1 free too (the ledger serves JSON-RPC on p and PubSub on p + 1). */
export const freePortPair = (): Promise<number> => pickFree(true)
