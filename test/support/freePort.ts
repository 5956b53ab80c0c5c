/** Free TCP ports on 127.0.0.1: one asked of the OS (bind to port 0, read it, release it), or a pair for a ledger child. */
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

export const freePort = async (): Promise<number> => {
  const port = await tryListen(0)
  if (port === null) throw new Error("no free port")
  return port
}

/**
 * Ports below the OS's ephemeral range (the highest leaves room for RPC + 2, the local relay): the OS takes a
 * connection's local port, and a bind to port 0, from that range only, so a port picked below it cannot be
 * taken by another process's connection between the pick and the child that binds it a second later (in the
 * range, the odd ports connections prefer made a ledger child's PubSub port, RPC + 1, such a target: CI saw
 * EADDRINUSE). Elsewhere than Linux, or with a range starting too low to leave room, the range it is.
 */
const belowEphemeralRange = (): readonly [number, number] | undefined => {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(low) && low >= 12_000 ? [10_000, low - 3] : undefined
  } catch {
    return undefined
  }
}
const quietRange = belowEphemeralRange()

/** A port p with p + 1 free too (the ledger serves JSON-RPC on p and PubSub on p + 1). */
export const freePortPair = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = quietRange === undefined ? await freePort() : quietRange[0] + 2 * Math.floor((Math.random() * (quietRange[1] - quietRange[0])) / 2)
    if (port < 65535 && (await tryListen(port)) !== null && (await tryListen(port + 1)) !== null) return port
  }
  throw new Error("no free port pair")
}
